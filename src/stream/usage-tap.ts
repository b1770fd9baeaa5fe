import type { ChatChunk, ChatUsage } from './wire';
import { carriesContent, classifyEvent } from './chunks';
import { SseDecoder, type SseEvent } from './events';
import { encodeEvent } from './encoder';
import { joinedRegions } from './joined-regions';

const ascii = (s: string) => Buffer.from(s, 'latin1');
const LF2 = ascii('\n\n');
const CRLF2 = ascii('\r\n\r\n');
const USAGE_KEY = ascii('"usage"');
const DONE_MARK = ascii('[DONE]');
const ERROR_KEY = ascii('"error"');
/** Decodes a tap's tail: one for every stream, as a tail is decoded whole and synchronously. */
const tailDecoder = new SseDecoder();

/**
 * Forwarded bytes and regions held uncounted at most (references to the upstream's own buffers):
 * LAZY_COUNT_FIRST regions until the first count, LAZY_COUNT_REGIONS after it. Regions are
 * bounded too: a slow upstream sends one small region per event, each its own buffer, and a
 * stream held open kept up to 64 KB of them (~350; see FOLD_FIRST in forwarded-text.ts).
 */
const LAZY_COUNT_BYTES = 64 * 1024;
const LAZY_COUNT_FIRST = 64;
const LAZY_COUNT_REGIONS = 16;
// The two chunks without output that upstreams send: the role-only opening one and the closing one.
const EMPTY_MARKS = ['"content":""', '"content": ""', '"delta":{}', '"delta": {}'].map(ascii);

// Buffer's byte search applied to the chunk itself: wrapping a chunk with Buffer.from(b.buffer, ...)
// reads `.buffer`, which makes Bun materialise the chunk's ArrayBuffer (measured 1.7 µs per
// chunk, against 0.03 µs for the search alone).
const bufIndexOf = Buffer.prototype.indexOf;
const bufLastIndexOf = Buffer.prototype.lastIndexOf;
const indexOf = (b: Uint8Array, needle: Uint8Array, from = 0): number => bufIndexOf.call(b, needle, from);
const lastIndexOf = (b: Uint8Array, needle: Uint8Array, from = b.length): number => bufLastIndexOf.call(b, needle, from);

/** End offset of the last complete event in `b` (after its blank line), or -1. */
function lastBoundaryEnd(b: Uint8Array): number {
  // The usual read ends with its event's blank line (both LF and CRLF end in LF LF or CR LF CR LF).
  const n = b.length;
  if (n >= 2 && b[n - 1] === 10 && (b[n - 2] === 10 || (n >= 4 && b[n - 2] === 13 && b[n - 3] === 10 && b[n - 4] === 13))) return n;
  const lf = lastIndexOf(b, LF2);
  const crlf = lastIndexOf(b, CRLF2);
  return Math.max(lf < 0 ? -1 : lf + 2, crlf < 0 ? -1 : crlf + 4);
}

/** Offset of `"usage"` followed by an object (not `null`), i.e. a real usage report; or -1. */
function usageObjectAt(b: Uint8Array): number {
  let at = indexOf(b, USAGE_KEY);
  while (at >= 0) {
    let i = at + USAGE_KEY.length;
    while (i < b.length && (b[i] === 32 || b[i] === 58 /* : */ || b[i] === 9)) i++;
    if (b[i] === 123 /* { */) return at;
    at = indexOf(b, USAGE_KEY, i);
  }
  return -1;
}

/** Offset of the first byte that needs decoding (usage report, `[DONE]`, error), or -1. */
function firstSpecial(b: Uint8Array): number {
  let first = usageObjectAt(b);
  const done = indexOf(b, DONE_MARK);
  if (done >= 0 && (first < 0 || done < first)) first = done;
  const error = indexOf(b, ERROR_KEY);
  if (error >= 0 && (first < 0 || error < first)) first = error;
  return first;
}

function count(b: Uint8Array, needle: Uint8Array): number {
  let n = 0;
  for (let at = indexOf(b, needle); at >= 0; at = indexOf(b, needle, at + needle.length)) n++;
  return n;
}

/** Complete events in `b` that carry output: every event, less the role-only and finish chunks (byte search, no decoding). */
function countContentEvents(b: Uint8Array): number {
  let n = count(b, LF2);
  for (const mark of EMPTY_MARKS) n -= count(b, mark);
  return Math.max(0, n);
}

/**
 * The zero-copy tail tap (DESIGN "Streams"). Upstream bytes go out unchanged; the tap only
 * holds back an event that is not complete yet, so keep-alive pings never land inside one.
 * A chunk is decoded only when it carries the usage report, `[DONE]` or an error: the usage
 * chunk and `[DONE]` are withheld (the route re-emits them with `cost`, or strips usage), an
 * upstream error event is withheld (the route ends the stream with its own), and the content
 * chunks of that region are re-encoded.
 */
export class UsageTap {
  /** The upstream's usage report, once seen. */
  usage: ChatUsage | null = null;
  /** The chunk that carried it, to re-emit with `cost`. */
  usageChunk: ChatChunk | null = null;
  /** Whether the upstream ended its stream properly with `[DONE]`. */
  sawDone = false;
  /** Set when the upstream reported an error in-band. Not forwarded here: the proxy ends the stream with svc's own error event and `[DONE]`. */
  upstreamError: string | null = null;
  private rest: Uint8Array | null = null;
  private counted = 0;
  // Forwarded regions whose content events are not counted yet: a stream whose upstream reports
  // usage and ends well never needs the count (the byte searches were ~3 % of a stream's
  // samples), so it is taken when asked, or once these hold LAZY_COUNT_BYTES or `countAt` regions.
  private uncounted: Uint8Array[] | null = null;
  private uncountedBytes = 0;
  private countAt = LAZY_COUNT_FIRST;

  /** Events with output (content, reasoning, tool calls) forwarded so far: the completion-token estimate when the stream breaks. */
  get events(): number {
    if (this.uncounted) this.countNow();
    return this.counted;
  }

  /** Forwarded regions held uncounted now (bounded by `countAt` and LAZY_COUNT_BYTES). */
  get heldRegions(): number {
    return this.uncounted?.length ?? 0;
  }

  private countNow() {
    // Whole events each: joined, no event is made or lost at a boundary, and the searches are a call each, not one per region.
    this.counted += countContentEvents(joinedRegions(this.uncounted!, this.uncountedBytes));
    this.uncounted = null;
    this.uncountedBytes = 0;
    this.countAt = LAZY_COUNT_REGIONS;
  }

  /** Feeds upstream bytes; `out` receives what may go to the client now. */
  push(bytes: Uint8Array, out: (b: Uint8Array) => void): void {
    let buf = bytes;
    if (this.rest) {
      const joined = new Uint8Array(this.rest.length + bytes.length);
      joined.set(this.rest);
      joined.set(bytes, this.rest.length);
      buf = joined;
      this.rest = null;
    }
    const end = lastBoundaryEnd(buf);
    if (end < 0) {
      this.rest = buf;
      return;
    }
    if (end < buf.length) this.rest = buf.subarray(end);
    this.forward(end === buf.length ? buf : buf.subarray(0, end), out);
  }

  /** Ends the input: a trailing event without its blank line is forwarded too. */
  finish(out: (b: Uint8Array) => void): void {
    const rest = this.rest;
    this.rest = null;
    if (!rest || rest.length === 0) return;
    // Terminated here, so whatever the proxy writes next (an error event) is an event of its own.
    const ended = new Uint8Array(rest.length + LF2.length);
    ended.set(rest);
    ended.set(LF2, rest.length);
    this.forward(ended, out);
  }

  /** Writes whole content events as they came; their count is taken later (`events`). */
  private forwardAsIs(region: Uint8Array, out: (b: Uint8Array) => void) {
    (this.uncounted ??= []).push(region);
    this.uncountedBytes += region.length;
    if (this.uncountedBytes >= LAZY_COUNT_BYTES || this.uncounted.length >= this.countAt) this.countNow();
    out(region);
  }

  private forward(region: Uint8Array, out: (b: Uint8Array) => void) {
    const special = firstSpecial(region);
    if (special < 0) return this.forwardAsIs(region, out);
    // Events before the special one go out as their original bytes; only the rest is decoded.
    const cut = lastIndexOf(region, LF2, special);
    if (cut >= 0) {
      this.forwardAsIs(region.subarray(0, cut + 2), out);
      region = region.subarray(cut + 2);
    }
    // The rare path, about once per stream: decode just the tail, whole, before anything is
    // written (so the shared decoder is left empty, SseDecoder.end resets it, whatever a write does).
    const events = tailDecoder.push(region);
    const last = tailDecoder.end();
    for (const event of events) this.take(event, out);
    for (const event of last) this.take(event, out);
  }

  private take(event: SseEvent, out: (b: Uint8Array) => void) {
    const e = classifyEvent(event);
    if (!e) return;
    if (e.kind === 'done') this.sawDone = true;
    else if (e.kind === 'usage') {
      this.usage = e.usage;
      this.usageChunk = e.chunk;
    } else if (e.kind === 'error') {
      this.upstreamError = e.message;
    } else {
      if (e.usage) this.usage = e.usage;
      if (carriesContent(e.chunk)) this.counted++;
      out(encodeEvent(e.chunk));
    }
  }
}
