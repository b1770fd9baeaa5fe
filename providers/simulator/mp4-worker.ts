/**
 * Worker thread of the simulator's video renderer: encodes one clip per message, so the
 * synchronous WASM encoder never holds the server's event loop.
 */
import { encodeClip, type ClipSpec } from './mp4-encode';

declare const self: Worker;

self.onmessage = async function renderInWorker(event: MessageEvent<{ id: number; spec: ClipSpec }>) {
  try {
    const bytes = await encodeClip(event.data.spec);
    self.postMessage({ id: event.data.id, bytes }, [bytes.buffer]);
  } catch (error) {
    self.postMessage({ id: event.data.id, error: String(error) });
  }
};
