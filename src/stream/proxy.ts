import type { ChatChunk, ChatUsage } from '../pipeline/types';
import { classifyEvent, UpstreamStreamError } from './chunks';
import { DONE_BYTES, encodeEvent, encodeStreamError } from './encoder';
import { SseDecoder } from './events';
import { startKeepAlive, type KeepAlive } from './keep-alive';
import { UsageTap } from './usage-tap';

/** How a proxied stream ended, handed to metering exactly once. */
export interface StreamOutcome {
  /** The upstream's usage report, when it sent one before the end. */
  usage: ChatUsage | null;
  /** The chunk that carried the usage report, to re-emit with `cost`. */
  usageChunk: ChatChunk | null;
  /** Content events that reached the client (completion estimate when usage is missing). */
  forwarded: number;
  /** Why the stream failed mid-way, or null. */
  error: string | null;
  /** The client went away before the end. */
  aborted: boolean;
}

/** What the chat route plugs into a proxied stream. */
export interface ProxyStreamOptions {
  upstream: ReadableStream<Uint8Array>;
  /** Plugin chunk transforms; none means zero-copy pass-through with a tail tap. */
  transforms: TransformStream<ChatChunk, ChatChunk>[];
  /** Chunks to send before the first upstream byte (e.g. search results). */
  leading: ChatChunk[];
  pingIntervalMs: number;
  /** Aborts the upstream fetch (client disconnect). */
  abortUpstream(): void;
  /** Called once at the end (metering); returns the final usage chunk to send, or null. */
  finish(outcome: StreamOutcome): Promise<ChatChunk | null>;
}

/** One step of reading the upstream: false once it has ended. */
interface Source {
  step(write: (b: Uint8Array) => void): Promise<boolean>;
  outcome(): Omit<StreamOutcome, 'aborted'>;
  cancel(): void;
}

const INCOMPLETE = 'The upstream stream ended before it was complete';

/** Zero-copy: upstream bytes pass through the tap unchanged. */
function tapSource(upstream: ReadableStream<Uint8Array>): Source {
  const reader = upstream.getReader();
  const tap = new UsageTap();
  return {
    async step(write) {
      const { done, value } = await reader.read();
      if (done) {
        tap.finish(write);
        return false;
      }
      tap.push(value, write);
      return true;
    },
    outcome: () => ({
      usage: tap.usage,
      usageChunk: tap.usageChunk,
      forwarded: Math.max(0, tap.events - 1),
      error: tap.upstreamError ?? (tap.sawDone || tap.usage ? null : INCOMPLETE),
    }),
    cancel: () => void reader.cancel().catch(() => {}),
  };
}

/** Decode once, run the plugin transforms, encode once. */
function transformSource(upstream: ReadableStream<Uint8Array>, transforms: TransformStream<ChatChunk, ChatChunk>[]): Source {
  const reader = upstream.getReader();
  const decoder = new SseDecoder();
  let usage: ChatUsage | null = null;
  let usageChunk: ChatChunk | null = null;
  let sawDone = false;
  let forwarded = 0;
  const chunks = new ReadableStream<ChatChunk>(
    {
      async pull(c) {
        for (;;) {
          const { done, value } = await reader.read();
          const events = done ? decoder.end() : decoder.push(value);
          let enqueued = false;
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
              c.enqueue(e.chunk);
              enqueued = true;
            }
          }
          if (done || sawDone) {
            if (!sawDone && !usage) throw new UpstreamStreamError(INCOMPLETE);
            c.close();
            return;
          }
          if (enqueued) return;
        }
      },
      cancel: () => void reader.cancel().catch(() => {}),
    },
    { highWaterMark: 0 },
  );
  let piped: ReadableStream<ChatChunk> = chunks;
  for (const t of transforms) piped = piped.pipeThrough(t);
  const out = piped.getReader();
  return {
    async step(write) {
      const { done, value } = await out.read();
      if (done) return false;
      forwarded++;
      write(encodeEvent(value));
      return true;
    },
    outcome: () => ({ usage, usageChunk, forwarded, error: null }),
    cancel: () => void out.cancel().catch(() => {}),
  };
}

/**
 * The client-facing body of a streaming chat (DESIGN "Streams", STYLE "Streaming lifecycle"):
 * leading chunks, then the upstream (zero-copy or transformed), keep-alive pings while the
 * upstream is silent, then the usage chunk from `finish` and `[DONE]`. A mid-stream failure
 * becomes an in-band error event and `[DONE]`; a cancel (client gone) aborts the upstream.
 * `finish` runs exactly once on every path.
 */
export function proxyStream(o: ProxyStreamOptions): ReadableStream<Uint8Array> {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let keepAlive: KeepAlive;
  let closed = false;
  let finished = false;
  let wrote = false;
  const source = o.transforms.length > 0 ? transformSource(o.upstream, o.transforms) : tapSource(o.upstream);

  function write(bytes: Uint8Array) {
    if (closed) return;
    controller.enqueue(bytes);
    keepAlive.touch();
    wrote = true;
  }

  function close() {
    if (closed) return;
    closed = true;
    keepAlive.stop();
    controller.close();
  }

  async function finish(aborted: boolean, error: string | null): Promise<ChatChunk | null> {
    if (finished) return null;
    finished = true;
    keepAlive.stop();
    const outcome = source.outcome();
    return o.finish({ ...outcome, error: error ?? outcome.error, aborted });
  }

  async function end(error: string | null) {
    if (error) {
      write(encodeStreamError(error));
      write(DONE_BYTES);
      close();
      await finish(false, error);
      return;
    }
    const outcomeError = source.outcome().error;
    if (outcomeError) return end(outcomeError);
    const last = await finish(false, null);
    if (last) write(encodeEvent(last));
    write(DONE_BYTES);
    close();
  }

  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        keepAlive = startKeepAlive(o.pingIntervalMs, write);
        for (const chunk of o.leading) write(encodeEvent(chunk));
      },
      async pull() {
        if (closed) return;
        wrote = false;
        try {
          while (!wrote) if (!(await source.step(write))) return await end(null);
        } catch (error) {
          if (closed) return;
          const message = error instanceof UpstreamStreamError ? error.message : 'The upstream connection failed during the stream';
          await end(message);
        }
      },
      async cancel() {
        closed = true;
        keepAlive.stop();
        o.abortUpstream();
        source.cancel();
        await finish(true, null);
      },
    },
    { highWaterMark: 0 },
  );
}
