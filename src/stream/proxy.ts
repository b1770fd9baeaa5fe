import type { ChatChunk, ChunkTransformer } from './wire';
import { StreamStopped, UpstreamStreamError } from './chunks';
import { chatEncoder, utf8, type StreamEncoder } from './encoder';
import { startKeepAlive, type KeepAlive } from './keep-alive';
import { trackOpenStream, type TrackedStream } from './open-streams';
import { tapSource, transformSource, type Sink, type Source, type StreamOutcome } from './sources';
import { splicedSource, splices } from './spliced-source';

export type { StreamOutcome };

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
  /** Reads the `finish_reason`s the client gets (a sampled trace's): a byte search per forwarded region on the zero-copy path. */
  readFinishReasons?: boolean;
}

/** Default upstream idle timeout of a stream (config `streamIdleTimeoutMs`). */
export const STREAM_IDLE_TIMEOUT_MS = 60_000;

/**
 * The client-facing body of a streaming chat (DESIGN "Streams", STYLE "Streaming lifecycle"):
 * leading chunks, then the upstream (zero-copy or transformed), keep-alive pings while the
 * upstream is silent, then the usage chunk from `finish` and `[DONE]`. A mid-stream failure
 * (or a shutdown) becomes the usage chunk `finish` returns, if any, an in-band error event
 * and `[DONE]`; a cancel (client gone) aborts the upstream.
 * `finish` runs exactly once on every path.
 */
export function proxyStream(o: ProxyStreamOptions): ReadableStream<Uint8Array> {
  const proxy = new StreamProxy(o);
  const body = new ReadableStream(proxy as unknown as UnderlyingDefaultSource<Uint8Array>);
  proxy.tracked = trackOpenStream(body, proxy);
  return body;
}

/**
 * One proxied stream, and the source of its Bun direct stream (`type`, `pull`, `cancel`):
 * bytes are written straight to the socket, one JS hop per chunk instead of a queue per
 * ReadableStream layer (measured: as fast as piping the upstream body). Its steps are methods
 * on the prototype, not a dozen closures and their scope per stream.
 */
class StreamProxy implements Sink {
  readonly type = 'direct';
  /** The open-stream registration: reports the end to the access log and shutdown. */
  tracked!: TrackedStream;
  private controller: ReadableStreamDirectController | null = null;
  private keepAlive: KeepAlive | null = null;
  private closed = false;
  private finished = false;
  private ended: Promise<void> | null = null;
  private drain: Promise<number> | null = null;
  private readonly encoder: StreamEncoder;
  private readonly source: Source;

  constructor(private readonly o: ProxyStreamOptions) {
    this.encoder = o.encoder ?? chatEncoder;
    const reasons = o.readFinishReasons === true;
    this.source =
      o.transforms.length === 0 && splices(o.encoder)
        ? splicedSource(o.upstream, o.encoder, reasons)
        : o.transforms.length > 0 || o.encoder
          ? transformSource(o.upstream, o.transforms, this.encoder, reasons)
          : tapSource(o.upstream, reasons);
  }

  write(bytes: Uint8Array): void {
    // Nothing to send (an encoder that writes nothing for a chunk): Bun's write would return 0,
    // which below means the client has gone.
    if (this.closed || bytes.length === 0) return;
    const n = this.controller!.write(bytes);
    // 0 means the client has gone away: stop as a cancel would.
    if (n === 0) return void this.gone();
    if (typeof n !== 'number') this.drain = n;
    this.keepAlive?.touch();
  }

  /** Pushes buffered bytes out now (SSE must not wait for a buffer to fill) and honours backpressure. */
  private async flush() {
    if (this.closed) return;
    this.controller!.flush();
    if (this.drain) {
      const pending = this.drain;
      this.drain = null;
      await pending;
    }
  }

  /** A keep-alive ping, sent at once. */
  private ping(bytes: Uint8Array) {
    this.write(bytes);
    void this.flush();
  }

  private close() {
    if (this.closed) return;
    this.closed = true;
    this.keepAlive?.stop();
    this.controller!.close();
  }

  private async finish(aborted: boolean, error: string | null): Promise<ChatChunk | null> {
    if (this.finished) return null;
    this.finished = true;
    this.keepAlive?.stop();
    const outcome = this.source.outcome();
    const usage = outcome.usage;
    // Completed in place (its `forwarded` may be a getter a spread would read).
    outcome.error = error ?? outcome.error;
    outcome.aborted = aborted;
    this.tracked.ended({
      promptTokens: usage?.prompt_tokens ?? null,
      completionTokens: usage?.completion_tokens ?? null,
      error: outcome.error,
      aborted,
      finishReasons: outcome.finishReasons,
      text: () => {
        const kept = outcome.forwardedText();
        return { text: kept.text, cut: kept.chunksPastCap > 0 };
      },
    });
    return this.o.finish(outcome);
  }

  /**
   * Ends the stream once. A second caller (the read loop, after a shutdown's end cancelled the
   * upstream) waits for the first: Bun ends a direct stream when its pull returns, so the loop
   * must not return while the first end is still settling and writing.
   */
  private end(error: string | null): Promise<void> {
    this.ended ??= this.endOnce(error);
    return this.ended;
  }

  private async endOnce(error: string | null) {
    const failure = error ?? this.source.failure();
    if (failure) {
      // Settled before the end, so what it cost (the route's usage chunk) goes out ahead of the error.
      const charged = await this.finish(false, failure);
      if (charged) this.write(utf8.encode(this.encoder.chunk(charged)));
      this.write(utf8.encode(this.encoder.error(failure)));
      this.close();
      return;
    }
    const last = await this.finish(false, null);
    this.write(utf8.encode(this.encoder.end(last)));
    this.close();
  }

  /** The upstream went silent: stop waiting for it and end the stream, charged for what was forwarded. */
  private async idle(ms: number) {
    if (this.closed) return;
    this.o.abortUpstream();
    this.source.cancel();
    await this.end(`The upstream sent nothing for ${Math.round(ms / 1000)} s; the stream was ended`);
  }

  private async gone() {
    if (this.closed && this.finished) return;
    this.closed = true;
    this.keepAlive?.stop();
    this.o.abortUpstream();
    this.source.cancel();
    await this.finish(true, null);
  }

  async pull(c: ReadableStreamDirectController): Promise<void> {
    if (this.closed) return;
    this.controller = c;
    const { o, encoder, source } = this;
    const idleMs = o.idleTimeoutMs ?? STREAM_IDLE_TIMEOUT_MS;
    const keepAlive = startKeepAlive(o.pingIntervalMs, (b) => this.ping(b), {
      ticks: Math.max(1, Math.ceil(idleMs / o.pingIntervalMs)),
      onIdle: () => void this.idle(idleMs),
    });
    this.keepAlive = keepAlive;
    const head = encoder.start();
    if (head) this.write(utf8.encode(head));
    for (const chunk of o.leading) this.write(utf8.encode(encoder.chunk(chunk)));
    try {
      if (o.leading.length > 0 || head) await this.flush();
      while (!this.closed && source.take(await source.reader.read(), this)) {
        keepAlive.upstream();
        // flush() inlined: an async call per chunk is a promise per chunk, and backpressure is rare.
        if (this.closed) continue;
        c.flush();
        if (this.drain) await this.flush();
      }
      // A transformer's check of the whole answer (an external classifier) holds the end back.
      if (!this.closed && source.beforeEnd) await source.beforeEnd(this);
      if (!this.closed) await this.end(null);
    } catch (error) {
      if (this.closed) return;
      if (error instanceof StreamStopped) {
        this.o.abortUpstream();
        this.source.cancel();
        if (error.finish) this.write(utf8.encode(encoder.chunk(error.finish)));
      }
      const message = error instanceof UpstreamStreamError ? error.message : 'The upstream connection failed during the stream';
      await this.end(message);
    }
  }

  cancel(): Promise<void> {
    return this.gone();
  }

  /** Shutdown past its deadline: an in-band error and [DONE], settled for what was sent, then the upstream is cut. */
  async endNow(message: string): Promise<void> {
    if (this.closed) return;
    if (!this.controller) return this.gone();
    const ending = this.end(message);
    this.o.abortUpstream();
    this.source.cancel();
    await ending;
  }
}
