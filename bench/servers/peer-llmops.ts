/**
 * Serves `@llmops/gateway` (a fork of Portkey's gateway: a Hono app) on Bun, as its users run
 * it, from the bench's peer cache (PEER_DIR, see bench/lib/peers.ts).
 */
const dir = process.env.PEER_DIR;
if (!dir) throw new Error('PEER_DIR is not set');
const { default: app } = (await import(`${dir}/node_modules/@llmops/gateway/dist/index.mjs`)) as {
  default: { fetch: (r: Request) => Response | Promise<Response> };
};
const server = Bun.serve({ port: Number(process.env.PORT ?? 0), hostname: '127.0.0.1', idleTimeout: 60, fetch: (r) => app.fetch(r) });
process.stdout.write(`peer listening on ${server.port}\n`);
process.on('SIGTERM', () => process.exit(0));
export {};
