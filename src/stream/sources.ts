import type { ChatChunk, ChatUsage, ChunkTransformer } from './wire';
import { carriesContent, classifyEvent, UpstreamStreamError } from './chunks';
import { utf8, type StreamEncoder } from './encoder';
import { SseDecoder } from './events';
import { byteReader, type ByteReader, type ReadResult } from './prefetched';
import { UsageTap } from './usage-tap';
import { ForwardedText } from './forwarded-text';
import { FinishReasons } from './finish-reasons';

/** How a proxied stream ended, handed to metering exactly once. */
export interface StreamOutcome {
  /** The upstream's usage report, when it sent one before the end. */
  usage: ChatUsage | null;
  /** The chunk that carried the usage report, to re-emit with `cost`. */
  usageChunk: ChatChunk | null;
  /** Chunks with output that reached the client. */
  forwarded: number;
  /** The content text that reached the client (decoded on demand): what an upstream without usage is billed for. */
  forwardedText(): { text: string; chunksPastCap: number };
  /** Why the stream failed mid-way, or null. */
  error: string | null;
  /** The client went away before the end. */
  aborted: boolean;
  /** The `finish_reason`s the client got, in order (traces); null when none, or when they were not read (not traced). */
  finishReasons: string[] | null;
}

/** Where a source writes what goes to the client (the proxy). */
export interface Sink {
  write(bytes: Uint8Array): void;
}

/**
 * The upstream as the proxy reads it: the loop awaits `reader.read()` itself and hands each
 * result to `take` (synchronous: no async frame or promise of its own per chunk); `take`
 * returns false once the upstream has ended.
 */
export interface Source {
  reader: ByteReader;
  take(r: ReadResult, sink: Sink): boolean;
  /** A new outcome (not aborted) for `finish` to complete. */
  outcome(): StreamOutcome;
  /** Why the stream failed so far (the upstream's in-band error, an incomplete end), or null. */
  failure(): string | null;
  /** Awaits the transformers' `end` after the upstream ended (absent when none has one), writing what they release. */
  beforeEnd?(sink: Sink): Promise<void>;
  cancel(): void;
}

const INCOMPLETE = 'The upstream stream ended before it was complete';

/** Why a tapped stream failed: the upstream's in-band error, or an end without `[DONE]` or usage. */
const tapError = (tap: UsageTap) => tap.upstreamError ?? (tap.sawDone || tap.usage ? null : INCOMPLETE);

/**
 * The zero-copy path's outcome. The content events forwarded are counted only when read
 * (`forwarded`, or the fallback count past its cap): a stream with a usage report never needs them.
 */
class TapOutcome implements StreamOutcome {
  readonly usage: ChatUsage | null;
  readonly usageChunk: ChatChunk | null;
  error: string | null;
  aborted = false;
  readonly finishReasons: string[] | null;

  constructor(
    private readonly tap: UsageTap,
    private readonly kept: ForwardedText,
    reasons: FinishReasons | null,
  ) {
    this.usage = tap.usage;
    this.usageChunk = tap.usageChunk;
    this.error = tapError(tap);
    this.finishReasons = reasons && reasons.result();
  }

  get forwarded(): number {
    return this.tap.events;
  }

  forwardedText() {
    return this.kept.content(this.tap.events);
  }
}

/** Swallows a cancel's failure: the upstream is being let go. */
const ignore = () => {};

/** Zero-copy: upstream bytes pass through the tap unchanged. Methods on the prototype, not closures per stream. */
class TapSource implements Source {
  readonly reader: ByteReader;
  private readonly tap = new UsageTap();
  private readonly kept = new ForwardedText();
  private keep: ((region: Uint8Array) => void) | null = null;

  constructor(
    upstream: ReadableStream<Uint8Array>,
    /** Set only for a sampled trace: no search otherwise. */
    private readonly reasons: FinishReasons | null,
  ) {
    this.reader = byteReader(upstream);
  }

  take(r: ReadResult, sink: Sink): boolean {
    // Every region the tap writes is content events (it withholds usage and [DONE]): kept by reference.
    const keep = (this.keep ??= this.keeper(sink));
    if (r.done) {
      this.tap.finish(keep);
      return false;
    }
    this.tap.push(r.value, keep);
    return true;
  }

  /** The tap's output: kept for the fallback count, then written. */
  private keeper(sink: Sink) {
    const { kept, tap, reasons } = this;
    if (reasons)
      return function keepReading(region: Uint8Array) {
        kept.keepBytes(region, tap);
        reasons.scan(region);
        sink.write(region);
      };
    return function keep(region: Uint8Array) {
      kept.keepBytes(region, tap);
      sink.write(region);
    };
  }

  outcome(): StreamOutcome {
    return new TapOutcome(this.tap, this.kept, this.reasons);
  }

  failure(): string | null {
    return tapError(this.tap);
  }

  cancel(): void {
    this.reader.cancel().catch(ignore);
  }
}

/** Zero-copy: upstream bytes pass through the tap unchanged; `readReasons` also reads their finish reasons (a sampled trace). */
export const tapSource = (upstream: ReadableStream<Uint8Array>, readReasons = false): Source =>
  new TapSource(upstream, readReasons ? new FinishReasons() : null);

/**
 * Decode once, run the plugin transforms, encode once. Each upstream read is decoded, every
 * content chunk goes through the transformers synchronously (stage i emits into stage i+1,
 * the last stage encodes and writes), and the proxy flushes once per read, as on the
 * zero-copy path, instead of once per chunk.
 */
export function transformSource(
  upstream: ReadableStream<Uint8Array>,
  transformers: ChunkTransformer[],
  encoder: StreamEncoder,
  readReasons = false,
): Source {
  const reader = byteReader(upstream);
  const decoder = new SseDecoder();
  let usage: ChatUsage | null = null;
  let usageChunk: ChatChunk | null = null;
  let sawDone = false;
  let forwarded = 0;
  const kept = new ForwardedText();
  const reasons = readReasons ? new FinishReasons() : null;
  // The events of one upstream read are gathered as text and encoded and written once: a
  // write per chunk cost more than the plugins themselves (docs/perf-notes/2026-11-24.md, "Profile and fixes").
  let out = '';
  const stages: ((chunk: ChatChunk) => void)[] = [];
  stages[transformers.length] = function gatherChunk(chunk) {
    if (carriesContent(chunk)) {
      forwarded++;
      kept.keepChunk(chunk);
    }
    reasons?.take(chunk);
    out += encoder.chunk(chunk);
  };
  for (let i = transformers.length - 1; i >= 0; i--) {
    const transformer = transformers[i]!;
    const next = stages[i + 1]!;
    stages[i] = (chunk) => transformer.transform(chunk, next);
  }
  const first = stages[0]!;

  /** Each transformer's `end` in order; what one releases goes through the later ones, flushed again after it. */
  async function beforeEnd(sink: Sink): Promise<void> {
    try {
      for (let i = 0; i < transformers.length; i++) {
        const t = transformers[i]!;
        if (!t.end) continue;
        await t.end(stages[i + 1]!);
        for (let j = i + 1; j < transformers.length; j++) transformers[j]!.flush?.(stages[j + 1]!);
      }
    } finally {
      if (out !== '') sink.write(utf8.encode(out));
      out = '';
    }
  }

  return {
    beforeEnd: transformers.some((t) => t.end) ? beforeEnd : undefined,
    reader,
    take(r, sink) {
      try {
        return consume(r);
      } finally {
        if (out !== '') sink.write(utf8.encode(out));
        out = '';
      }
    },
    outcome: () => ({
      usage,
      usageChunk,
      forwarded,
      forwardedText: () => kept.content(),
      error: null,
      aborted: false,
      finishReasons: reasons && reasons.result(),
    }),
    failure: () => null,
    cancel: () => void reader.cancel().catch(ignore),
  };

  function consume({ done, value }: ReadResult): boolean {
    const events = done ? decoder.end() : decoder.push(value);
    for (const event of events) {
      const e = classifyEvent(event);
      if (!e || sawDone) continue;
      if (e.kind === 'done') sawDone = true;
      else if (e.kind === 'error') throw new UpstreamStreamError(e.message);
      else if (e.kind === 'usage') {
        usage = e.usage;
        usageChunk = e.chunk;
      } else {
        if (e.usage) usage = e.usage;
        first(e.chunk);
      }
    }
    if (!done && !sawDone) return true;
    if (!sawDone && !usage) throw new UpstreamStreamError(INCOMPLETE);
    // What a transformer still holds (a partial tag) goes through the later stages.
    for (let i = 0; i < transformers.length; i++) transformers[i]!.flush?.(stages[i + 1]!);
    return false;
  }
}
