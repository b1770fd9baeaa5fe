/**
 * Where the values of a JSON document are, found without building them. A container is
 * skipped by jumping from quote to bracket with a regex (native speed over a long number
 * array), so a caller parses only the small values it needs and passes the others on as
 * the sender wrote them. Strings, brackets and the shape of the scanned objects and arrays
 * are checked; the numbers and commas inside a skipped container are not, so a caller
 * checks what it passes on.
 */

import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE, skipSpace } from '../../src/http/json-chars';

/** A value's place in the text, `start` inclusive, `end` exclusive. */
export interface Span {
  start: number;
  end: number;
}

// Searches for a few ASCII characters (a positive class) run at memchr speed in JavaScriptCore;
// a negated class such as [^"\\] over a long base64 string ran over ten times slower.
const STRING_STOP = /["\\\x00-\x1f]/g;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;
const SCALAR = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
const STRUCTURAL = /["[\]{}]/g;

function broken(what: string, at: number): SyntaxError {
  return new SyntaxError(`JSON: ${what} at ${at}`);
}

/** The end of the string at `at`, its escapes checked. */
function stringEnd(text: string, at: number): number {
  STRING_STOP.lastIndex = at + 1;
  for (;;) {
    const found = STRING_STOP.exec(text);
    if (!found) throw broken('an unclosed string', at);
    const i = found.index;
    const c = text.charCodeAt(i);
    if (c === QUOTE) return i + 1;
    ESCAPE.lastIndex = i;
    if (c !== BACKSLASH || !ESCAPE.test(text)) throw broken('a malformed string', i);
    STRING_STOP.lastIndex = ESCAPE.lastIndex;
  }
}

/** The end of the object or array at `at`, its brackets matched and its strings checked. */
function containerEnd(text: string, at: number): number {
  const closers: number[] = [];
  STRUCTURAL.lastIndex = at;
  for (;;) {
    const found = STRUCTURAL.exec(text);
    if (!found) throw broken('an unclosed container', at);
    const i = found.index;
    const c = text.charCodeAt(i);
    if (c === QUOTE) STRUCTURAL.lastIndex = stringEnd(text, i);
    else if (c === OPEN_BRACE) closers.push(CLOSE_BRACE);
    else if (c === OPEN_BRACKET) closers.push(CLOSE_BRACKET);
    else if (closers.pop() !== c) throw broken('a mismatched bracket', i);
    else if (closers.length === 0) return i + 1;
  }
}

/** The end of the value that starts at `at`. */
export function valueEnd(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (c === QUOTE) return stringEnd(text, at);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) return containerEnd(text, at);
  SCALAR.lastIndex = at;
  if (!SCALAR.test(text)) throw broken('no value', at);
  return SCALAR.lastIndex;
}

/** The members of the object at `at` (keys unescaped; a repeated key's last value wins, as JSON.parse) and its end. */
export function objectMembers(text: string, at: number): { members: Map<string, Span>; end: number } {
  if (text.charCodeAt(at) !== OPEN_BRACE) throw broken('no object', at);
  const members = new Map<string, Span>();
  let i = skipSpace(text, at + 1);
  if (text.charCodeAt(i) === CLOSE_BRACE) return { members, end: i + 1 };
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) throw broken('no key', i);
    const keyEnd = stringEnd(text, i);
    const raw = text.slice(i + 1, keyEnd - 1);
    const key = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) throw broken('no colon', i);
    const start = skipSpace(text, i + 1);
    const end = valueEnd(text, start);
    members.set(key, { start, end });
    i = skipSpace(text, end);
    const c = text.charCodeAt(i);
    if (c === CLOSE_BRACE) return { members, end: i + 1 };
    if (c !== COMMA) throw broken('no comma', i);
    i = skipSpace(text, i + 1);
  }
}

/** The elements of the array at `at` and its end. */
export function arrayElements(text: string, at: number): { elements: Span[]; end: number } {
  if (text.charCodeAt(at) !== OPEN_BRACKET) throw broken('no array', at);
  const elements: Span[] = [];
  let i = skipSpace(text, at + 1);
  if (text.charCodeAt(i) === CLOSE_BRACKET) return { elements, end: i + 1 };
  for (;;) {
    const end = valueEnd(text, i);
    elements.push({ start: i, end });
    i = skipSpace(text, end);
    const c = text.charCodeAt(i);
    if (c === CLOSE_BRACKET) return { elements, end: i + 1 };
    if (c !== COMMA) throw broken('no comma', i);
    i = skipSpace(text, i + 1);
  }
}

/** The members of a document that is one object, with nothing but whitespace around it. */
export function documentMembers(text: string): Map<string, Span> {
  const { members, end } = objectMembers(text, skipSpace(text, 0));
  if (skipSpace(text, end) !== text.length) throw broken('text after the document', end);
  return members;
}

/** Whether the sticky `pattern` matches exactly the text of `span`. */
export function spanMatches(pattern: RegExp, text: string, span: Span): boolean {
  pattern.lastIndex = span.start;
  return pattern.test(text) && pattern.lastIndex === span.end;
}
