import type { Logger } from '../log';
import { endOpenStreams, openStreamCount, streamsDrained } from '../stream/open-streams';
import { startDraining } from './draining';

/** The message of the in-band error event a stream gets when the deadline cuts it. */
export const SHUTDOWN_STREAM_MESSAGE = 'The server is shutting down; the stream was ended before it was complete';

/** What a graceful shutdown stops and closes, in order. */
export interface ShutdownSteps {
  log: Logger;
  /** How long open streams may run on after the listener closes. */
  graceMs: number;
  /** How long the listener keeps serving, readiness at 503, before it closes (0: close at once). */
  drainMs: number;
  /** Stops accepting connections at once; resolves when the requests in flight (streams included) have ended. */
  stopListening(): Promise<unknown> | void;
  /** Writes queued settlements to the ledger. */
  flushLedger(): Promise<void>;
  /** Closes the KV store, the limiter and the database pools. */
  closePools(): Promise<void>;
}

// Requests still in flight after the streams (an upstream call before its first byte) get this much longer.
const REQUESTS_GRACE_MS = 5_000;

async function timed(log: Logger, step: string, run: () => Promise<unknown> | unknown) {
  const started = performance.now();
  await run();
  log.info(`shutdown: ${step}`, { ms: Math.round(performance.now() - started) });
}

/**
 * The graceful shutdown (SIGTERM/SIGINT): readiness turns 503 and every answer carries
 * `Connection: close` while the listener keeps serving for the drain period (a load
 * balancer's health check sees the 503 and sends new requests elsewhere, and its kept-alive
 * connections are closed by the answers, not cut under a request); then the listener stops,
 * open streams may finish until the deadline, the rest are ended with an in-band error event
 * and settled for what they sent; then the ledger is flushed and the pools closed. Each step
 * is logged.
 */
export async function shutDown(s: ShutdownSteps, signal: string): Promise<void> {
  const { log } = s;
  startDraining();
  log.info('shutdown: started', {
    signal,
    openStreams: openStreamCount(),
    drainSeconds: s.drainMs / 1000,
    graceSeconds: s.graceMs / 1000,
  });
  if (s.drainMs > 0) {
    log.info('shutdown: draining, readiness answers 503 while the listener serves on');
    await Bun.sleep(s.drainMs);
  }
  const idle = Promise.resolve(s.stopListening()).catch(() => {});
  log.info('shutdown: stopped accepting connections');
  const open = openStreamCount();
  if (open > 0) {
    const drained = await streamsDrained(s.graceMs);
    if (drained) log.info('shutdown: open streams finished', { streams: open });
    else {
      const ended = await endOpenStreams(SHUTDOWN_STREAM_MESSAGE);
      log.warn('shutdown: deadline reached, streams ended in-band and settled', { streams: ended });
    }
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), REQUESTS_GRACE_MS)));
  const finished = await Promise.race([idle.then(() => true), late]);
  clearTimeout(timer);
  log.info(finished ? 'shutdown: no request in flight' : 'shutdown: requests still in flight, closing anyway');
  await timed(log, 'ledger flushed', s.flushLedger);
  await timed(log, 'storage, KV and limiter closed', s.closePools);
  log.info('shutdown: done');
}
