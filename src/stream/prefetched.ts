/** A reader over a stream's bytes: `read` and `cancel`, the two calls the proxy makes. */
export interface ByteReader {
  read(): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }>;
  cancel(): Promise<void>;
}

/** One read of a ByteReader. */
export type ReadResult = Awaited<ReturnType<ByteReader['read']>>;

const PREFETCHED = Symbol('svc.stream.prefetched');

/**
 * A byte stream whose first chunk was already read (providers read it to tell a failure
 * before the first byte from one after). The returned stream replays it for any reader;
 * the proxy instead takes the underlying reader through `byteReader` and skips one
 * ReadableStream hop per chunk on the hot path. `onEnd` runs after the last read; a caller that
 * can learn the end otherwise (a native reader's `closed`) leaves it out and saves a promise per chunk.
 */
export function prefetchedStream(first: Uint8Array, reader: ByteReader, onEnd?: () => void): ReadableStream<Uint8Array> {
  return readerStream(new Prefetched(first, reader, onEnd));
}

/** `prefetchedStream`'s reader: one object per stream, its methods on the prototype. */
class Prefetched implements ByteReader {
  // One function for every read, and `then` rather than an async wrapper: no frame to resume
  // and no closure per chunk on the hot path. Made only when there is an `onEnd`.
  private readonly seen: ((r: ReadResult) => ReadResult) | null;

  constructor(
    private pending: Uint8Array | null,
    private readonly reader: ByteReader,
    onEnd?: () => void,
  ) {
    this.seen = onEnd
      ? function seen(r) {
          if (r.done) onEnd();
          return r;
        }
      : null;
  }

  read(): Promise<ReadResult> {
    const value = this.pending;
    if (value) {
      this.pending = null;
      return Promise.resolve({ done: false as const, value });
    }
    return this.seen ? this.reader.read().then(this.seen) : this.reader.read();
  }

  cancel(): Promise<void> {
    return this.reader.cancel();
  }
}

/** The source of a `readerStream`: its methods on the prototype, so a stream allocates no closures for them. */
class DirectSource implements UnderlyingDefaultSource<Uint8Array> {
  constructor(readonly direct: ByteReader) {}

  async pull(c: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    const r = await this.direct.read();
    if (r.done) c.close();
    else c.enqueue(r.value);
  }

  cancel(): Promise<void> {
    return this.direct.cancel();
  }
}

/** Pull one read at a time (shared: one strategy object per stream is one more allocation). */
const ONE_AT_A_TIME: QueuingStrategy<Uint8Array> = { highWaterMark: 0 };

/** A ReadableStream over `reader` that `byteReader` can unwrap back to it. */
export function readerStream(direct: ByteReader): ReadableStream<Uint8Array> {
  const stream = new ReadableStream<Uint8Array>(new DirectSource(direct), ONE_AT_A_TIME);
  // Assigned, not defined: a symbol key is hidden from JSON and for-in either way, and a descriptor is one more object.
  (stream as unknown as Record<symbol, ByteReader>)[PREFETCHED] = direct;
  return stream;
}

/** The cheapest reader of `stream`: the prefetched source when there is one. */
export function byteReader(stream: ReadableStream<Uint8Array>): ByteReader {
  const direct = (stream as unknown as Record<symbol, ByteReader | undefined>)[PREFETCHED];
  if (direct) return direct;
  const reader = stream.getReader();
  return { read: () => reader.read() as ReturnType<ByteReader['read']>, cancel: () => reader.cancel() };
}
