import { Elysia } from 'elysia';
import { Registry } from 'prom-client';
import { EVENT_LOOP_DELAY_BUCKETS, sampleEventLoopDelay } from '../../src/metrics/event-loop';
import { HotHistogram } from '../../src/metrics/hot';

/**
 * The floor svc is compared with: a pass-through proxy in Bun + Elysia that forwards the
 * body to the upstream path of the same name (chat completions, embeddings, image generation
 * and edits, speech, responses, JSON-RPC on /crypto/rpc/*; media jobs' submit, poll and
 * download to JOBS_URL) and streams the answer back through a new Response, nothing else. It samples its
 * event-loop delay as svc does (GET /metrics), so the saturation phases compare the two.
 */
const upstream = process.env.UPSTREAM_URL ?? 'http://127.0.0.1:1';
const jobsUpstream = process.env.JOBS_URL ?? 'http://127.0.0.1:1';

const registry = new Registry();
const delay = new HotHistogram(registry, 'bare_event_loop_delay_seconds', 'event-loop delay', EVENT_LOOP_DELAY_BUCKETS);
sampleEventLoopDelay((s) => delay.observe('', () => ({}), s));

/** The upstream path of a proxied path (svc's names for the image routes). */
function upstreamPath(url: string): string {
  if (url.endsWith('/embeddings')) return '/embeddings';
  if (url.endsWith('/images/generations')) return '/images/generations';
  if (url.endsWith('/image/edit')) return '/images/edits';
  if (url.endsWith('/audio/speech')) return '/audio/speech';
  if (url.endsWith('/responses')) return '/responses';
  if (url.includes('/crypto/rpc/')) return '/rpc';
  return '/chat/completions';
}

/** Relays `res`'s status, type and body in a new Response. */
const relay = (res: Response) =>
  new Response(res.body, { status: res.status, headers: { 'content-type': res.headers.get('content-type') ?? 'application/json' } });

const app = new Elysia()
  .get('/metrics', () => registry.metrics())
  // A media job: its poll and its download, as OpenAI's video API names them.
  .get('/videos/*', async function forwardJob({ request, path }) {
    return relay(await fetch(`${jobsUpstream}${path}`, { signal: request.signal }));
  })
  .post('/videos', async function submitJob({ request }) {
    const headers = { 'content-type': 'application/json' };
    return relay(
      await fetch(`${jobsUpstream}/videos`, { method: 'POST', headers, body: await request.arrayBuffer(), signal: request.signal }),
    );
  })
  .post('/*', async function forward({ request }) {
    const res = await fetch(`${upstream}${upstreamPath(request.url)}`, {
      method: 'POST',
      headers: { 'content-type': request.headers.get('content-type') ?? 'application/json' },
      body: await request.arrayBuffer(),
      signal: request.signal,
    });
    return relay(res);
  });

app.listen({ port: Number(process.env.PORT ?? 0), hostname: '127.0.0.1', idleTimeout: 60, maxRequestBodySize: 64 * 1024 * 1024 });
process.stdout.write(`bare proxy listening on ${app.server?.port}\n`);
process.on('SIGTERM', () => process.exit(0));
