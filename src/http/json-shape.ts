import { badRequest, type ServiceError } from './errors';
import { loneSurrogateProblem } from './well-formed';

/** How deep and how wide a JSON request body may be; checked on the raw text before it is parsed. */
export interface JsonShapeLimits {
  /** Most arrays and objects open at once. */
  maxDepth: number;
  /** Most elements in one array, or members in one object. */
  maxItems: number;
  /** Most values in the whole body (elements and members, at every level). */
  maxValues: number;
}

/**
 * The limits every JSON route applies. Well above any request the API documents (a tool's JSON
 * schema nests a dozen levels, an embeddings batch holds 2,048 inputs of a few thousand token
 * ids each), and low enough that parsing and validating a body under the size limit stays in
 * the milliseconds.
 */
export const JSON_SHAPE_LIMITS: JsonShapeLimits = { maxDepth: 128, maxItems: 100_000, maxValues: 1_000_000 };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/** The index of the quote that closes the string whose opening quote is at `open`, or -1. */
function closingQuote(text: string, open: number): number {
  // indexOf runs natively: most of a typical body's bytes are string content, skipped here in bulk.
  for (let at = text.indexOf('"', open + 1); at !== -1; at = text.indexOf('"', at + 1)) {
    let slashes = 0;
    while (text.charCodeAt(at - 1 - slashes) === BACKSLASH) slashes++;
    if ((slashes & 1) === 0) return at;
  }
  return -1;
}

/** The comma counts of the scan's open containers, by depth (grown to the deepest limit asked for). */
let sharedCommas = new Int32Array(JSON_SHAPE_LIMITS.maxDepth + 1);

/**
 * Checks the shape of a JSON text in one linear pass, without building anything: the depth of
 * nested arrays and objects and their element counts, counted outside strings. Returns the
 * 400 for the first limit passed, or null. Malformed text is left to JSON.parse to refuse.
 */
export function jsonShapeProblem(text: string, limits: JsonShapeLimits = JSON_SHAPE_LIMITS): ServiceError | null {
  const { maxDepth, maxItems, maxValues } = limits;
  // Commas seen in each open container: its element count less one. One array for every
  // body (the scan is synchronous, and a level's count is zeroed when it opens).
  if (sharedCommas.length < maxDepth + 1) sharedCommas = new Int32Array(maxDepth + 1);
  const commas = sharedCommas;
  let depth = 0;
  let values = 0;
  for (let i = 0, n = text.length; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      if (end === -1) return null;
      i = end;
    } else if (c === COMMA) {
      if (++values >= maxValues) return tooMany(`more than ${maxValues} values in all`, 'maxValues');
      if (depth > 0 && ++commas[depth]! >= maxItems) return tooMany(`an array or object with more than ${maxItems} items`, 'maxItems');
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > maxDepth) return tooMany(`arrays and objects nested more than ${maxDepth} deep`, 'maxDepth');
      commas[depth] = 0;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (depth > 0) depth--;
    }
  }
  return null;
}

function tooMany(what: string, limit: keyof JsonShapeLimits): ServiceError {
  return badRequest(`Invalid request body: the JSON has ${what} (limit ${limit})`, [
    { path: ['body'], message: `exceeds the JSON ${limit} limit: ${what}` },
  ]);
}

/**
 * JSON.parse after the shape check: a body past a limit is refused before any object is built;
 * a string the body's escapes made a lone surrogate is refused after it (./well-formed.ts).
 */
export function parseJsonBody(text: string): unknown {
  const problem = jsonShapeProblem(text);
  if (problem) throw problem;
  const value: unknown = JSON.parse(text);
  const surrogate = loneSurrogateProblem(text, value, JSON_SHAPE_LIMITS.maxDepth);
  if (surrogate) throw surrogate;
  return value;
}
