import { startChild, type Child } from './proc';

/** A redis-server of the bench's own on a free port: everything it serves is the measured svc's (or harness's). */
export interface PrivateRedis {
  url: string;
  child: Child;
  stop(): Promise<void>;
}

/** True when `redis-server` is on PATH (the bench then gives svc a Redis of its own). */
export const hasRedisServer = () => Bun.which('redis-server') !== null;

/**
 * Starts `redis-server` with no persistence on a free port (or under `wrap`, e.g. valgrind).
 * The shared Redis of the machine also serves other processes, so its CPU per request would
 * count their commands too.
 */
export async function startPrivateRedis(opts: { wrap?: string[] } = {}): Promise<PrivateRedis> {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  const cmd = [...(opts.wrap ?? []), 'redis-server', '--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'];
  const child = startChild(`redis-server:${port}`, cmd);
  await child.waitFor(/Ready to accept connections/, opts.wrap ? 60_000 : 10_000);
  return { url: `redis://127.0.0.1:${port}`, child, stop: () => child.stop() };
}
