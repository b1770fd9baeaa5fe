import type { ChatChunk, ChatUsage, ChunkTransformer } from './wire';
import { carriesContent, classifyEvent, UpstreamStreamError } from './chunks';
import { chatEncoder, utf8, type StreamEncoder } from './encoder';
import { SseDecoder } from './events';
import { startKeepAlive, type KeepAlive } from './keep-alive';
import { trackOpenStream } from './open-streams';
import { byteReader, type ByteReader } from './prefetched';
import { UsageTap } from './usage-tap';
import { ForwardedText } from './forwarded-text';

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
}

/** What the chat route plugs into a proxied stream. */
export interface ProxyStreamOptions {
  upstream: ReadableStream<Uint8Array>;
  /** Plugin chunk transforms; none means zero-copy pass-through with a tail tap. */
  transforms: ChunkTransformer[];
  /** Chunks to send before the first upstream byte (e.g. search results). */
  leading: ChatChunk[];
  pingIntervalMs: number;
  /** An upstream silent this long (after the stream started) is given up: in-band error, `[DONE]`, charged for what was forwarded. */
  idleTimeoutMs?: number;
  /** Aborts the upstream fetch (client disconnect). */
  abortUpstream(): void;
  /** Called once at the end (metering); returns the final usage chunk to send, or null. */
  finish(outcome: StreamOutcome): Promise<ChatChunk | null>;
  /** Writes the stream in another wire format (decoding it even without transforms); chat chunks by default. */
  encoder?: StreamEncoder;
}

type ReadResult = Awaited<ReturnType<ByteReader['read']>>;

/**
 * The upstream as the proxy reads it: the loop awaits `reader.read()` itself and hands each
 * result to `take` (synchronous: no async frame or promise of its own per chunk); `take`
 * returns false once the upstream has ended.
 */
interface Source {
  reader: ByteReader;
  take(r: ReadResult, write: (b: Uint8Array) => void): boolean;
  /** A new outcome (not aborted) for `finish` to complete. */
  outcome(): StreamOutcome;
  cancel(): void;
}

const INCOMPLETE = 'The upstream stream ended before it was complete';

/** Default upstream idle timeout of a stream (config `streamIdleTimeoutMs`). */
export const STREAM_IDLE_TIMEOUT_MS = 60_000;

/**
 * The zero-copy path's outcome. The content events forwarded are counted only when read
 * (`forwarded`, or the fallback count past its cap): a stream with a usage report never needs them.
 */
class TapOutcome implements StreamOutcome {
  readonly usage: ChatUsage | null;
  readonly usageChunk: ChatChunk | null;
  error: string | null;
  aborted = false;

  constructor(
    private readonly tap: UsageTap,
    private readonly kept: ForwardedText,
  ) {
    this.usage = tap.usage;
    this.usageChunk = tap.usageChunk;
    this.error = tapError(tap);
  }

  get forwarded(): number {
    return this.tap.events;
  }

  forwardedText() {
    return this.kept.content(this.tap.events);
  }
}

/** Why a tapped stream failed: the upstream's in-band error, or an end without `[DONE]` or usage. */
const tapError = (tap: UsageTap) => tap.upstreamError ?? (tap.sawDone || tap.usage ? null : INCOMPLETE);

/** Zero-copy: upstream bytes pass through the tap unchanged. */
function tapSource(upstream: ReadableStream<Uint8Array>): Source {
  const reader = byteReader(upstream);
  const tap = new UsageTap();
  const kept = new ForwardedText();
  let keep: ((region: Uint8Array) => void) | null = null;
  return {
    reader,
    take(r, write) {
      // Every region the tap writes is content events (it withholds usage and [DONE]): kept by reference.
      keep ??= (region) => {
        kept.keepBytes(region, tap);
        write(region);
      };
      if (r.done) {
        tap.finish(keep);
        return false;
      }
      tap.push(r.value, keep);
      return true;
    },
    outcome: () => new TapOutcome(tap, kept),
    cancel: () => void reader.cancel().catch(() => {}),
  };
}

/**
 * Decode once, run the plugin transforms, encode once. Each upstream read is decoded, every
 * content chunk goes through the transformers synchronously (stage i emits into stage i+1,
 * the last stage encodes and writes), and the proxy flushes once per read, as on the
 * zero-copy path, instead of once per chunk.
 */
function transformSource(upstream: ReadableStream<Uint8Array>, transformers: ChunkTransformer[], encoder: StreamEncoder): Source {
  const reader = byteReader(upstream);
  const decoder = new SseDecoder();
  let usage: ChatUsage | null = null;
  let usageChunk: ChatChunk | null = null;
  let sawDone = false;
  let forwarded = 0;
  const kept = new ForwardedText();
  // The events of one upstream read are gathered as text and encoded and written once: a
  // write per chunk cost more than the plugins themselves (docs/perf-notes/2026-11-24.md, "Profile and fixes").
  let out = '';
  const stages: ((chunk: ChatChunk) => void)[] = [];
  stages[transformers.length] = function gatherChunk(chunk) {
    if (carriesContent(chunk)) {
      forwarded++;
      kept.keepChunk(chunk);
    }
    out += encoder.chunk(chunk);
  };
  for (let i = transformers.length - 1; i >= 0; i--) {
    const transformer = transformers[i]!;
    const next = stages[i + 1]!;
    stages[i] = (chunk) => transformer.transform(chunk, next);
  }
  const first = stages[0]!;

  return {
    reader,
    take(r, write) {
      try {
        return consume(r);
      } finally {
        if (out !== '') write(utf8.encode(out));
        out = '';
      }
    },
    outcome: () => ({ usage, usageChunk, forwarded, forwardedText: () => kept.content(), error: null, aborted: false }),
    cancel: () => void reader.cancel().catch(() => {}),
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

/**
 * The client-facing body of a streaming chat (DESIGN "Streams", STYLE "Streaming lifecycle"):
 * leading chunks, then the upstream (zero-copy or transformed), keep-alive pings while the
 * upstream is silent, then the usage chunk from `finish` and `[DONE]`. A mid-stream failure
 * (or a shutdown) becomes the usage chunk `finish` returns, if any, an in-band error event
 * and `[DONE]`; a cancel (client gone) aborts the upstream.
 * `finish` runs exactly once on every path.
 */
export function proxyStream(o: ProxyStreamOptions): ReadableStream<Uint8Array> {
  let controller!: ReadableStreamDirectController;
  let keepAlive: KeepAlive | null = null;
  let closed = false;
  let finished = false;
  let ended: Promise<void> | null = null;
  let drain: Promise<number> | null = null;
  const encoder = o.encoder ?? chatEncoder;
  const source = o.transforms.length > 0 || o.encoder ? transformSource(o.upstream, o.transforms, encoder) : tapSource(o.upstream);

  function write(bytes: Uint8Array) {
    // Nothing to send (an encoder that writes nothing for a chunk): Bun's write would return 0,
    // which below means the client has gone.
    if (closed || bytes.length === 0) return;
    const n = controller.write(bytes);
    // 0 means the client has gone away: stop as a cancel would.
    if (n === 0) return void gone();
    if (typeof n !== 'number') drain = n;
    keepAlive?.touch();
  }

  /** Pushes buffered bytes out now (SSE must not wait for a buffer to fill) and honours backpressure. */
  async function flush() {
    if (closed) return;
    controller.flush();
    if (drain) {
      const pending = drain;
      drain = null;
      await pending;
    }
  }

  function close() {
    if (closed) return;
    closed = true;
    keepAlive?.stop();
    controller.close();
  }

  async function finish(aborted: boolean, error: string | null): Promise<ChatChunk | null> {
    if (finished) return null;
    finished = true;
    keepAlive?.stop();
    const outcome = source.outcome();
    const usage = outcome.usage;
    // Completed in place (its `forwarded` may be a getter a spread would read).
    outcome.error = error ?? outcome.error;
    outcome.aborted = aborted;
    tracked.ended({
      promptTokens: usage?.prompt_tokens ?? null,
      completionTokens: usage?.completion_tokens ?? null,
      error: outcome.error,
      aborted,
    });
    return o.finish(outcome);
  }

  /**
   * Ends the stream once. A second caller (the read loop, after a shutdown's end cancelled the
   * upstream) waits for the first: Bun ends a direct stream when its pull returns, so the loop
   * must not return while the first end is still settling and writing.
   */
  function end(error: string | null): Promise<void> {
    ended ??= endOnce(error);
    return ended;
  }

  async function endOnce(error: string | null) {
    const failure = error ?? source.outcome().error;
    if (failure) {
      // Settled before the end, so what it cost (the route's usage chunk) goes out ahead of the error.
      const charged = await finish(false, failure);
      if (charged) write(utf8.encode(encoder.chunk(charged)));
      write(utf8.encode(encoder.error(failure)));
      close();
      return;
    }
    const last = await finish(false, null);
    write(utf8.encode(encoder.end(last)));
    close();
  }

  /** The upstream went silent: stop waiting for it and end the stream, charged for what was forwarded. */
  async function idle(ms: number) {
    if (closed) return;
    o.abortUpstream();
    source.cancel();
    await end(`The upstream sent nothing for ${Math.round(ms / 1000)} s; the stream was ended`);
  }

  async function gone() {
    if (closed && finished) return;
    closed = true;
    keepAlive?.stop();
    o.abortUpstream();
    source.cancel();
    await finish(true, null);
  }

  // A Bun direct stream: bytes are written straight to the socket, one JS hop per chunk
  // instead of a queue per ReadableStream layer (measured: as fast as piping the upstream body).
  const direct = {
    type: 'direct' as const,
    async pull(c: ReadableStreamDirectController) {
      if (closed) return;
      controller = c;
      const idleMs = o.idleTimeoutMs ?? STREAM_IDLE_TIMEOUT_MS;
      keepAlive = startKeepAlive(
        o.pingIntervalMs,
        (b) => {
          write(b);
          void flush();
        },
        { ticks: Math.max(1, Math.ceil(idleMs / o.pingIntervalMs)), onIdle: () => void idle(idleMs) },
      );
      const head = encoder.start();
      if (head) write(utf8.encode(head));
      for (const chunk of o.leading) write(utf8.encode(encoder.chunk(chunk)));
      try {
        if (o.leading.length > 0 || head) await flush();
        while (!closed && source.take(await source.reader.read(), write)) {
          keepAlive.upstream();
          // flush() inlined: an async call per chunk is a promise per chunk, and backpressure is rare.
          if (closed) continue;
          controller.flush();
          if (drain) await flush();
        }
        if (!closed) await end(null);
      } catch (error) {
        if (closed) return;
        const message = error instanceof UpstreamStreamError ? error.message : 'The upstream connection failed during the stream';
        await end(message);
      }
    },
    cancel: () => gone(),
  };
  const body = new ReadableStream(direct as unknown as UnderlyingDefaultSource<Uint8Array>);
  // Shutdown past its deadline: an in-band error and [DONE], settled for what was sent, then the upstream is cut.
  const tracked = trackOpenStream(body, async function endAtShutdown(message) {
    if (closed) return;
    if (!controller) return gone();
    const ending = end(message);
    o.abortUpstream();
    source.cancel();
    await ending;
  });
  return body;
}
