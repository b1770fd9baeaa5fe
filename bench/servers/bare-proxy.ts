import { Elysia } from 'elysia';

/**
 * The floor svc is compared with: a pass-through proxy in Bun + Elysia that forwards the
 * body to the upstream path of the same name (chat completions or embeddings) and streams the
 * answer back through a new Response, nothing else.
 */
const upstream = process.env.UPSTREAM_URL ?? 'http://127.0.0.1:1';

const app = new Elysia().post('/*', async function forward({ request }) {
  const path = request.url.endsWith('/embeddings') ? '/embeddings' : '/chat/completions';
  const res = await fetch(`${upstream}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: await request.arrayBuffer(),
    signal: request.signal,
  });
  return new Response(res.body, { status: res.status, headers: { 'content-type': res.headers.get('content-type') ?? 'application/json' } });
});

app.listen({ port: Number(process.env.PORT ?? 0), hostname: '127.0.0.1', idleTimeout: 60 });
process.stdout.write(`bare proxy listening on ${app.server?.port}\n`);
process.on('SIGTERM', () => process.exit(0));
