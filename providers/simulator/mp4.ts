import type { ClipSpec } from './mp4-encode';

export type { ClipSpec } from './mp4-encode';

/** The one render worker, started with the first simulated video and kept (unref'd) for the next. */
/** Bun's Worker, which can be told not to keep the process alive (absent from the DOM typings). */
type BunWorker = Worker & { ref(): void; unref(): void };

let worker: BunWorker | null = null;
let nextId = 0;
const waiting = new Map<number, { resolve(bytes: Uint8Array<ArrayBuffer>): void; reject(error: Error): void }>();

function renderer(): BunWorker {
  if (worker) return worker;
  const w = new Worker(new URL('./mp4-worker.ts', import.meta.url).href) as BunWorker;
  w.onmessage = (event: MessageEvent<{ id: number; bytes?: Uint8Array<ArrayBuffer>; error?: string }>) => {
    const pending = waiting.get(event.data.id);
    waiting.delete(event.data.id);
    if (waiting.size === 0) w.unref();
    if (event.data.bytes) pending?.resolve(event.data.bytes);
    else pending?.reject(new Error(`simulator: video render failed: ${event.data.error}`));
  };
  w.onerror = (event) => {
    for (const p of waiting.values()) p.reject(new Error(`simulator: video renderer crashed: ${event.message}`));
    waiting.clear();
    worker = null;
  };
  worker = w;
  return w;
}

/**
 * A real H.264 MP4 of `spec`, encoded in a worker thread (providers/simulator/mp4-worker.ts):
 * the encoder is synchronous WASM, and a clip takes seconds of CPU the server's requests must not wait behind.
 */
export function renderClip(spec: ClipSpec): Promise<Uint8Array<ArrayBuffer>> {
  const w = renderer();
  w.ref();
  const id = ++nextId;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    w.postMessage({ id, spec });
  });
}
