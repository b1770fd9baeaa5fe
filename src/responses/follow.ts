import { PING_BYTES, utf8 } from '../stream/encoder';
import { replayText } from './replay';
import type { ResponseStore } from './store';

/** The states of a background response that has not ended. */
const RUNNING = new Set(['queued', 'in_progress']);

/** The headers of a typed event stream. */
export const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };

/** Pings as chat streams send them; a read of the store every 200 ms (a query, while a client follows). */
export const FOLLOW_PACE: FollowPace = { pollMs: 200, pingMs: 15_000 };

/** How often a followed response is read again, and how often a ping goes out while it runs. */
export interface FollowPace {
  pollMs: number;
  pingMs: number;
}

/**
 * A stored response's typed events as a stream that follows a background response to its end:
 * `response.created` and `response.in_progress` at once, then (read again every `pollMs`,
 * `: ping` comments every `pingMs` meanwhile) its items and closing event when it ends. Only
 * the events after `startingAfter` are written; the numbering is the replay's, so a client
 * that reconnects with the last number it saw continues where it was. A response that is
 * deleted meanwhile ends the stream. A finished response is its replay, whole.
 */
export function followResponse(
  store: ResponseStore,
  accountId: string,
  id: string,
  startingAfter: number,
  pace: FollowPace,
): ReadableStream<Uint8Array> {
  let sent = startingAfter;
  let stopped = false;
  let lastWrite = Date.now();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (!stopped) {
        const r = await store.get(accountId, id);
        const running = r !== null && RUNNING.has(r.response.status as string);
        const text = r ? replayText(r.response, sent) : '';
        if (text) {
          // A running response's replay is its opening events (it stores no items until it ends).
          sent += (text.match(/^event: /gm) ?? []).length;
          lastWrite = Date.now();
          controller.enqueue(utf8.encode(text));
        }
        if (!running) {
          controller.close();
          return;
        }
        if (text) return;
        if (Date.now() - lastWrite >= pace.pingMs) {
          lastWrite = Date.now();
          controller.enqueue(PING_BYTES);
          return;
        }
        await Bun.sleep(pace.pollMs);
      }
    },
    cancel() {
      stopped = true;
    },
  });
}
