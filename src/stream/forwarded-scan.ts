import { BACKSLASH, CLOSE_BRACE, COLON, OPEN_BRACE, OPEN_BRACKET, QUOTE } from '../http/json-chars';

const ascii = (s: string) => Buffer.from(s, 'latin1');
/** The keys whose string values chunkText collects: content, reasoning, a tool call's name and arguments. */
const KEYS = ['"content"', '"reasoning_content"', '"name"', '"arguments"'].map(ascii);
const DATA = ascii('data:');
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
const TAB = 0x09;

const bufIndexOf = Buffer.prototype.indexOf;
const indexOf = (b: Uint8Array, needle: Uint8Array | number, from: number): number => bufIndexOf.call(b, needle, from);
const utf8 = new TextDecoder();
const encoder = new TextEncoder();
const nextKey = new Int32Array(KEYS.length);
// The text's bytes are gathered in one buffer for every stream (the scan and its decode are
// synchronous), grown to the largest count up to SCRATCH_MAX: a buffer the size of the
// forwarded bytes per stream was most of a counted stream's allocation, for a text a few
// percent of that size. A larger count (a read far past the kept text's cap) gets its own.
const SCRATCH_MAX = 256 * 1024;
let scratch = new Uint8Array(16 * 1024);

/** A buffer of at least `size` bytes to gather the text in. */
function gatherBuffer(size: number): Uint8Array {
  if (size <= scratch.length) return scratch;
  const buffer = new Uint8Array(size);
  if (size <= SCRATCH_MAX) scratch = buffer;
  return buffer;
}

/**
 * Appends to `out` (from `at`) the string values of KEYS in `b` (whole events, checked by
 * linesAreEvents), in the order they appear. A key inside a JSON string is never matched: its
 * quotes would be escaped; a value that is the key's text is told apart by the colon that
 * follows a key. Each key is searched once over the region. Returns the new length, or -1 when
 * a value is neither a string nor null, an object or an array (the caller decodes).
 */
function scanValues(b: Uint8Array, out: Uint8Array, at: number): number {
  const end = b.length;
  // The next occurrence of each key, advanced as they are consumed (one scratch array for every
  // region: the scan is synchronous; an array per region was 8 % of a chunked stream's profile).
  const next = nextKey;
  for (let j = 0; j < KEYS.length; j++) next[j] = indexOf(b, KEYS[j]!, 0);
  for (;;) {
    let k = -1;
    for (let i = 0; i < KEYS.length; i++) if (next[i]! >= 0 && (k < 0 || next[i]! < next[k]!)) k = i;
    if (k < 0) return at;
    let i = next[k]! + KEYS[k]!.length;
    next[k] = indexOf(b, KEYS[k]!, i);
    while (b[i] === SPACE || b[i] === TAB) i++;
    if (b[i] !== COLON) continue; // the key's text as a value: not a key
    i++;
    while (b[i] === SPACE || b[i] === TAB) i++;
    if (b[i] !== QUOTE) {
      if (b[i] === 0x6e /* n */ || b[i] === OPEN_BRACE || b[i] === OPEN_BRACKET) continue; // null, or an object or array (logprobs)
      return -1;
    }
    // The string's bytes copied as they are (values are short: a loop, no view allocated),
    // unless it has an escape: then JSON.parse reads it, and its text is written back as UTF-8.
    const from = at;
    let close = -1;
    let escaped = false;
    for (let p = i + 1; p < end; p++) {
      const c = b[p]!;
      if (c === QUOTE) {
        close = p;
        break;
      }
      if (c === BACKSLASH) {
        escaped = true;
        break;
      }
      out[at++] = c;
    }
    if (escaped) {
      at = from;
      for (let p = i + 1; p < end; p++) {
        if (b[p] === BACKSLASH) p++;
        else if (b[p] === QUOTE) {
          close = p;
          break;
        }
      }
      if (close < 0) return -1;
      const text = JSON.parse(utf8.decode(b.subarray(i, close + 1))) as string;
      at += encoder.encodeInto(text, out.subarray(at)).written;
    }
    if (close < 0) return -1;
    for (let j = 0; j < KEYS.length; j++) if (next[j]! >= 0 && next[j]! < close) next[j] = indexOf(b, KEYS[j]!, close);
  }
}

/**
 * Whether every line of `b` is a single-line `data: {...}` event, a comment without a quote
 * (so no key can hide in it) or blank.
 */
function linesAreEvents(b: Uint8Array): boolean {
  let line = 0;
  while (line < b.length) {
    let eol = indexOf(b, LF, line);
    if (eol < 0) eol = b.length;
    const lineEnd = eol > line && b[eol - 1] === CR ? eol - 1 : eol;
    if (lineEnd > line) {
      if (b[line] === COLON) {
        const quote = indexOf(b, QUOTE, line);
        if (quote >= 0 && quote < lineEnd) return false;
      } else {
        if (indexOf(b, DATA, line) !== line) return false;
        let j = line + DATA.length;
        while (b[j] === SPACE) j++;
        if (b[j] !== OPEN_BRACE || b[lineEnd - 1] !== CLOSE_BRACE) return false;
      }
    }
    line = eol + 1;
  }
  return true;
}

/**
 * The text the client got from the zero-copy path's forwarded regions, read from the bytes
 * without decoding the events: the string values of `content`, `reasoning_content` and a tool
 * call's `name` and `arguments`, in order, as chunkText collects them. Every line must be a
 * single-line `data: {...}` event or a comment; anything else (multi-line data, `event:`
 * fields, a value that is neither a string nor null) returns null, and the caller decodes the
 * events instead. One shared buffer for the whole text, one UTF-8 decode.
 */
export function scanForwardedText(regions: readonly Uint8Array[], totalBytes: number): string | null {
  const out = gatherBuffer(totalBytes);
  let at = 0;
  for (const b of regions) {
    if (!linesAreEvents(b)) return null;
    at = scanValues(b, out, at);
    if (at < 0) return null;
  }
  return utf8.decode(out.subarray(0, at));
}
