import type { ChatChunk, ChatUsage } from '../pipeline/types';
import { classifyEvent } from './chunks';
import { SseDecoder } from './events';
import { encodeEvent } from './encoder';

const ascii = (s: string) => Buffer.from(s, 'latin1');
const LF2 = ascii('\n\n');
const CRLF2 = ascii('\r\n\r\n');
const USAGE_KEY = ascii('"usage"');
const DONE_MARK = ascii('[DONE]');
const ERROR_KEY = ascii('"error"');

const view = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** End offset of the last complete event in `b` (after its blank line), or -1. */
function lastBoundaryEnd(b: Buffer): number {
  const lf = b.lastIndexOf(LF2);
  const crlf = b.lastIndexOf(CRLF2);
  return Math.max(lf < 0 ? -1 : lf + 2, crlf < 0 ? -1 : crlf + 4);
}

/** Offset of `"usage"` followed by an object (not `null`), i.e. a real usage report; or -1. */
function usageObjectAt(b: Buffer): number {
  let at = b.indexOf(USAGE_KEY);
  while (at >= 0) {
    let i = at + USAGE_KEY.length;
    while (i < b.length && (b[i] === 32 || b[i] === 58 /* : */ || b[i] === 9)) i++;
    if (b[i] === 123 /* { */) return at;
    at = b.indexOf(USAGE_KEY, i);
  }
  return -1;
}

/** Offset of the first byte that needs decoding (usage report, `[DONE]`, error), or -1. */
function firstSpecial(b: Buffer): number {
  let first = -1;
  for (const at of [usageObjectAt(b), b.indexOf(DONE_MARK), b.indexOf(ERROR_KEY)]) if (at >= 0 && (first < 0 || at < first)) first = at;
  return first;
}

function countEvents(b: Buffer): number {
  let n = 0;
  for (let at = b.indexOf(LF2); at >= 0; at = b.indexOf(LF2, at + 2)) n++;
  return n;
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
  /** Events forwarded so far: the completion-token estimate when the stream breaks. */
  events = 0;
  /** Whether the upstream ended its stream properly with `[DONE]`. */
  sawDone = false;
  /** Set when the upstream reported an error in-band (already forwarded as is). */
  upstreamError: string | null = null;
  private rest: Uint8Array | null = null;

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
    const end = lastBoundaryEnd(view(buf));
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
    if (rest && rest.length > 0) this.forward(rest, out);
  }

  private forward(region: Uint8Array, out: (b: Uint8Array) => void) {
    const b = view(region);
    const special = firstSpecial(b);
    if (special < 0) {
      this.events += countEvents(b);
      out(region);
      return;
    }
    // Events before the special one go out as their original bytes; only the rest is decoded.
    const cut = b.lastIndexOf(LF2, special);
    if (cut >= 0) {
      const head = b.subarray(0, cut + 2);
      this.events += countEvents(head);
      out(region.subarray(0, cut + 2));
      region = region.subarray(cut + 2);
    }
    // The rare path, about once per stream: decode just the tail.
    const decoder = new SseDecoder();
    const events = [...decoder.push(region), ...decoder.end()];
    for (const event of events) {
      const e = classifyEvent(event);
      if (!e) continue;
      if (e.kind === 'done') this.sawDone = true;
      else if (e.kind === 'usage') {
        this.usage = e.usage;
        this.usageChunk = e.chunk;
      } else if (e.kind === 'error') {
        this.upstreamError = e.message;
      } else {
        if (e.usage) this.usage = e.usage;
        this.events++;
        out(encodeEvent(e.chunk));
      }
    }
  }
}
