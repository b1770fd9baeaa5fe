import type { ChatChunk, ChatUsage } from './wire';
import { carriesContent, classifyEvent, UpstreamStreamError } from './chunks';
import type { StreamEncoder } from './encoder';
import { SseDecoder, type SseEvent } from './events';
import { FinishReasons } from './finish-reasons';
import { chunkText, FORWARDED_TEXT_CAP } from './forwarded-text';
import { byteReader, type ByteReader, type ReadResult } from './prefetched';
import type { Sink, Source, StreamOutcome } from './sources';

/**
 * An encoder that writes some upstream events straight from their bytes, without decoding
 * them (the Responses API's text deltas). Every event it declines is decoded and handed to
 * `chunk` as usual; `decoded` then sees the event's text beside its chunk, to learn from it.
 */
export interface SplicingEncoder extends StreamEncoder {
  /**
   * Writes the events for the upstream SSE event `bytes[start, end)` (its blank line excluded)
   * to `out` when it can without decoding it, hands `kept` the JSON-escaped content the event
   * carried (for the fallback count), and returns true; false leaves the event to be decoded.
   */
  splice(bytes: Uint8Array, start: number, end: number, out: ByteOut, kept: KeptContent): boolean;
  /** A content chunk that was decoded (before `chunk` is called with it), with the event it came from. */
  decoded(event: SseEvent, chunk: ChatChunk): void;
}

/** Where a spliced event's content goes for the fallback count: its JSON-escaped text, `src[from, to)`. */
export interface KeptContent {
  raw(src: Uint8Array, from: number, to: number): void;
}

/** Whether an encoder writes some events from their bytes. */
export const splices = (encoder: StreamEncoder | undefined): encoder is SplicingEncoder =>
  encoder !== undefined && typeof (encoder as Partial<SplicingEncoder>).splice === 'function';

const bufIndexOf = Buffer.prototype.indexOf;
const bufCopy = Buffer.prototype.copy;
const BLANK = Buffer.from('\n\n', 'latin1');
const CR = 13;

const utf8Text = new TextDecoder();

/**
 * A growing byte buffer: what a read writes to the client, gathered and copied out once per
 * read (text from the decoded path's events, byte ranges from spliced ones), or escaped text
 * kept to be decoded once. Its memory is made on first use.
 */
export class ByteOut {
  private view = new Uint8Array(0);
  /** A Buffer over `view`'s memory, for its native string write (made when a string is written). */
  private buf: Buffer | null = null;
  private n = 0;

  constructor(private readonly initial = 1024) {}

  /** Bytes gathered. */
  get length(): number {
    return this.n;
  }

  /** Appends a string's UTF-8. */
  text(s: string): void {
    if (s === '') return;
    this.room(s.length * 3);
    const buf = (this.buf ??= Buffer.from(this.view.buffer, this.view.byteOffset, this.view.length));
    this.n += buf.write(s, this.n);
  }

  /** Appends `src[start, end)`. */
  bytes(src: Uint8Array, start: number, end: number): void {
    this.room(end - start);
    this.n += bufCopy.call(src, this.view, this.n, start, end);
  }

  /** Appends a non-negative integer's decimal digits. */
  integer(value: number): void {
    this.room(16);
    const view = this.view;
    let digits = 1;
    for (let v = value; v >= 10; v = Math.floor(v / 10)) digits++;
    let at = this.n + digits;
    this.n = at;
    let v = value;
    do {
      view[--at] = 48 + (v % 10);
      v = Math.floor(v / 10);
    } while (v > 0);
  }

  /** The bytes gathered since the last take (a copy: the buffer is reused), or null when none. */
  take(): Uint8Array | null {
    if (this.n === 0) return null;
    const out = this.view.slice(0, this.n);
    this.n = 0;
    return out;
  }

  /** The bytes `[from, to)` gathered, decoded as UTF-8. */
  decode(from = 0, to = this.n): string {
    return utf8Text.decode(this.view.subarray(from, to));
  }

  /** Forgets what was gathered (the memory stays for the next). */
  clear(): void {
    this.n = 0;
  }

  private room(more: number): void {
    if (this.n + more <= this.view.length) return;
    const grown = new Uint8Array(Math.max(this.initial, this.view.length * 2, this.n + more));
    grown.set(this.view.subarray(0, this.n));
    this.view = grown;
    this.buf = null;
  }
}

/**
 * One buffer for every stream: a source fills it and copies it out within one synchronous
 * `take`, so streams never see each other's bytes, and a stream allocates none of its own.
 */
const SHARED_OUT = new ByteOut();

const INCOMPLETE = 'The upstream stream ended before it was complete';
const ignore = () => {};

/**
 * What a spliced stream forwarded, in order, for the fallback count of an upstream that reports
 * no usage: decoded chunks' text, and spliced events' escaped content (copied, unescaped only
 * when read). Stops keeping at FORWARDED_TEXT_CAP and counts the content chunks past it, as
 * ForwardedText does.
 */
class KeptText {
  /** Decoded text, or the end in `escaped` of a run of spliced content (which starts where the previous run ended). */
  private readonly parts: (string | number)[] = [];
  private readonly escaped = new ByteOut(256);
  private size = 0;
  private pastCap = 0;

  /** Keeps a decoded chunk's text. */
  keep(text: string): void {
    if (this.full()) return;
    this.parts.push(text);
    this.size += text.length;
  }

  /** Keeps a spliced event's JSON-escaped content `src[from, to)`. */
  raw(src: Uint8Array, from: number, to: number): void {
    if (this.full()) return;
    this.escaped.bytes(src, from, to);
    this.size += to - from;
    const parts = this.parts;
    if (typeof parts[parts.length - 1] === 'number') parts[parts.length - 1] = this.escaped.length;
    else parts.push(this.escaped.length);
  }

  private full(): boolean {
    if (this.size < FORWARDED_TEXT_CAP) return false;
    this.pastCap++;
    return true;
  }

  content(): { text: string; chunksPastCap: number } {
    let text = '';
    let at = 0;
    for (const part of this.parts) {
      if (typeof part === 'string') text += part;
      else {
        text += JSON.parse(`"${this.escaped.decode(at, part)}"`) as string;
        at = part;
      }
    }
    return { text, chunksPastCap: this.pastCap };
  }
}

/**
 * The decoded path's Source (transformSource without transforms) for an encoder that splices:
 * each upstream read is cut into whole SSE events; an event the encoder writes from its bytes
 * is written so, every other one is decoded, classified and encoded as transformSource does
 * (usage withheld, `[DONE]` and in-band errors honoured). An event split across reads waits
 * for its end. An upstream that sends a CR anywhere is decoded whole from then on (its line
 * ends are not the `\n\n` the cut looks for).
 */
class SplicedSource implements Source {
  readonly reader: ByteReader;
  private readonly decoder = new SseDecoder();
  private readonly out = SHARED_OUT;
  private readonly kept = new KeptText();
  private readonly reasons: FinishReasons | null;
  private usage: ChatUsage | null = null;
  private usageChunk: ChatChunk | null = null;
  private sawDone = false;
  private forwarded = 0;
  /** The start of an event cut by the end of the previous read. */
  private carry: Uint8Array | null = null;
  private cutting = true;

  constructor(
    upstream: ReadableStream<Uint8Array>,
    private readonly encoder: SplicingEncoder,
    readReasons: boolean,
  ) {
    this.reader = byteReader(upstream);
    this.reasons = readReasons ? new FinishReasons() : null;
  }

  take(r: ReadResult, sink: Sink): boolean {
    try {
      return this.consume(r);
    } finally {
      const bytes = this.out.take();
      if (bytes) sink.write(bytes);
    }
  }

  private consume(r: ReadResult): boolean {
    if (r.done) {
      const carry = this.carry;
      this.carry = null;
      if (carry) this.events(this.decoder.push(carry));
      this.events(this.decoder.end());
      if (!this.sawDone && !this.usage) throw new UpstreamStreamError(INCOMPLETE);
      return false;
    }
    let bytes = r.value;
    if (this.cutting && bufIndexOf.call(bytes, CR, 0) !== -1) this.cutting = false;
    if (!this.cutting) {
      const carry = this.carry;
      this.carry = null;
      if (carry) this.events(this.decoder.push(carry));
      this.events(this.decoder.push(bytes));
      return !this.sawDone;
    }
    if (this.carry) {
      bytes = Buffer.concat([this.carry, bytes]);
      this.carry = null;
    }
    this.cut(bytes);
    return !this.sawDone;
  }

  /** Each whole event of a read, spliced or decoded; the cut one at the end is carried. */
  private cut(bytes: Uint8Array): void {
    const { encoder, out } = this;
    let at = 0;
    while (at < bytes.length && !this.sawDone) {
      const end: number = bufIndexOf.call(bytes, BLANK, at);
      if (end === -1) {
        this.carry = bytes.slice(at);
        return;
      }
      if (encoder.splice(bytes, at, end, out, this.kept)) this.forwarded++;
      else this.events(this.decoder.push(bytes.subarray(at, end + 2)));
      at = end + 2;
    }
  }

  private events(events: SseEvent[]): void {
    for (const event of events) {
      const e = classifyEvent(event);
      if (!e || this.sawDone) continue;
      if (e.kind === 'done') this.sawDone = true;
      else if (e.kind === 'error') throw new UpstreamStreamError(e.message);
      else if (e.kind === 'usage') {
        this.usage = e.usage;
        this.usageChunk = e.chunk;
      } else {
        if (e.usage) this.usage = e.usage;
        else this.encoder.decoded(event, e.chunk);
        this.gather(e.chunk);
      }
    }
  }

  private gather(chunk: ChatChunk): void {
    if (carriesContent(chunk)) {
      this.forwarded++;
      this.kept.keep(chunkText(chunk));
    }
    this.reasons?.take(chunk);
    this.out.text(this.encoder.chunk(chunk));
  }

  outcome(): StreamOutcome {
    const kept = this.kept;
    return {
      usage: this.usage,
      usageChunk: this.usageChunk,
      forwarded: this.forwarded,
      forwardedText: () => kept.content(),
      error: null,
      aborted: false,
      finishReasons: this.reasons && this.reasons.result(),
    };
  }

  failure(): string | null {
    return null;
  }

  cancel(): void {
    this.reader.cancel().catch(ignore);
  }
}

/** The decoded path for a splicing encoder with no transforms: its events written from their bytes where it can. */
export const splicedSource = (upstream: ReadableStream<Uint8Array>, encoder: SplicingEncoder, readReasons = false): Source =>
  new SplicedSource(upstream, encoder, readReasons);
