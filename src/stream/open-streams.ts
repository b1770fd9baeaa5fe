import { reportOpenStreams } from '../metrics';

/** How a tracked stream ended, as the access log reports it. */
export interface StreamEnd {
  promptTokens: number | null;
  completionTokens: number | null;
  error: string | null;
  aborted: boolean;
  /** The `finish_reason`s the client got (traces), null when not read (the request is not traced) or none came. */
  finishReasons?: string[] | null;
  /** The content text forwarded (from the first 64 KiB; `cut` past them), read on demand: only for a request whose bodies are captured. */
  text?: () => { text: string; cut: boolean };
}

/** A streaming response in progress, as the proxy registers it. */
export interface OpenStream {
  /** Ends the stream now with an in-band error event and settles it (shutdown deadline). */
  endNow(message: string): Promise<void>;
  /** Called once by whoever waits for the end (the access log); runs at once if it has ended. */
  onEnd(listener: (end: StreamEnd) => void): void;
}

/** The handle the proxy keeps: it reports the end exactly once. */
export interface TrackedStream {
  ended(end: StreamEnd): void;
}

const open = new Set<OpenStream>();
const byBody = new WeakMap<ReadableStream<Uint8Array>, OpenStream>();
let emptied: (() => void)[] = [];
reportOpenStreams(() => open.size);

/** What a tracked stream is ended with at the shutdown deadline. */
export interface StreamEnder {
  /** Ends the stream now with an in-band error event and settles it. */
  endNow(message: string): Promise<void>;
}

/** A registered stream: the access log's handle and the proxy's, in one object per stream. */
class Tracked implements OpenStream, TrackedStream {
  private result: StreamEnd | null = null;
  private listener: ((end: StreamEnd) => void) | null = null;

  constructor(private readonly ender: StreamEnder) {}

  endNow(message: string): Promise<void> {
    return this.ender.endNow(message);
  }

  onEnd(fn: (end: StreamEnd) => void): void {
    if (this.result) fn(this.result);
    else this.listener = fn;
  }

  ended(end: StreamEnd): void {
    if (this.result) return;
    this.result = end;
    open.delete(this);
    this.listener?.(end);
    if (open.size === 0) for (const resolve of emptied.splice(0)) resolve();
  }
}

/**
 * Registers a streaming body: counted in `svc_open_streams`, found by the access log from
 * the response body, and ended by `endOpenStreams` at the shutdown deadline.
 */
export function trackOpenStream(body: ReadableStream<Uint8Array>, ender: StreamEnder): TrackedStream {
  const stream = new Tracked(ender);
  open.add(stream);
  byBody.set(body, stream);
  return stream;
}

/** The open stream whose response body is `body`, if the proxy made it. */
export function openStreamOf(body: ReadableStream<Uint8Array> | null): OpenStream | undefined {
  return body ? byBody.get(body) : undefined;
}

/** Streams in progress in this process. */
export function openStreamCount(): number {
  return open.size;
}

/** Resolves when no stream is open, or after `ms`; true when they all ended by themselves. */
export async function streamsDrained(ms: number): Promise<boolean> {
  if (open.size === 0) return true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onEmpty!: () => void;
  const drained = new Promise<boolean>((resolve) => emptied.push((onEmpty = () => resolve(true))));
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([drained, late]);
  } finally {
    clearTimeout(timer);
    emptied = emptied.filter((fn) => fn !== onEmpty);
  }
}

/** Ends every open stream with an in-band error and waits for each to settle; returns how many it ended. */
export async function endOpenStreams(message: string): Promise<number> {
  const streams = [...open];
  await Promise.allSettled(streams.map((s) => s.endNow(message)));
  return streams.length;
}
