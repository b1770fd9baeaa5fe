import type { Config } from '../config';

/**
 * The options svc listens with (src/index.ts; tests that listen use them too). svc bounds
 * request bodies itself (src/gates/body-limit.ts) so that a 413 carries `{ error }`: Bun's own
 * `maxRequestBodySize` answers an empty 413 first, so it is lifted out of the way.
 */
export function serveOptions(config: Pick<Config, 'port' | 'host'> & Partial<Pick<Config, 'reusePort'>>) {
  return {
    port: config.port,
    hostname: config.host,
    // Elysia's Bun adapter turns it on: a second svc on a taken port would start silently and
    // take half the connections.
    reusePort: config.reusePort ?? false,
    // Streams stay open for minutes; keep-alive pings every 15 s keep them under this timeout.
    idleTimeout: 60,
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
  };
}
