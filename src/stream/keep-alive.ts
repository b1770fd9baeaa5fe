import { PING_BYTES } from './encoder';

/** A running keep-alive; `touch` on every write, `stop` when the stream ends. */
export interface KeepAlive {
  touch(): void;
  stop(): void;
}

/**
 * Sends `: ping` every `intervalMs` while nothing else was written (DESIGN "Keep-alive"),
 * so a model silent for minutes does not get the connection dropped by a proxy or client.
 * One timer per stream and a flag per write: no clock read on the hot path.
 */
export function startKeepAlive(intervalMs: number, write: (bytes: Uint8Array) => void): KeepAlive {
  let wrote = false;
  const timer = setInterval(function keepAlivePing() {
    if (!wrote) write(PING_BYTES);
    wrote = false;
  }, intervalMs);
  // A stream's timer must never keep the process alive on its own.
  (timer as { unref?: () => void }).unref?.();
  return {
    touch() {
      wrote = true;
    },
    stop() {
      clearInterval(timer);
    },
  };
}
