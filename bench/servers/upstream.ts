/**
 * A fast OpenAI-compatible upstream for the benchmark: POST .../chat/completions answers
 * JSON or SSE from precomputed bytes. The runner sets the shape of the next answers with
 * POST /__bench/config {chunks, delayMs, jsonWords?, usage?} and reads GET /__bench/stats (open streams, peak).
 * Every stream opens with a short `<think>` block so the strip_thinking plugin has work.
 * POST .../embeddings and .../images/{generations,edits} answer as OpenAI-compatible servers do;
 * .../audio/speech, .../responses and .../rpc as upstream-families.ts says.
 */
import { familyCall, shapeFamilies } from './upstream-families';
import { imageCall } from './upstream-images';
import { contentFrames, DONE_FRAME, embeddingsAnswer, jsonCompletion, sseStream, USAGE_FRAME } from './upstream-bytes';

interface Shape {
  /** Content chunks per stream. */
  chunks: number;
  /** Delay between chunks in ms; 0 writes them back to back. */
  delayMs: number;
  /** Words of a JSON (non-streaming) answer's content; 50 unless set. */
  jsonWords?: number;
  /**
   * `asked` (the default): a stream ends with a usage chunk when the request asks for it
   * (`stream_options.include_usage`), as OpenAI does; `never`: no stream reports usage, as
   * many OpenAI-compatible servers do, and svc counts the tokens itself.
   */
  usage?: 'asked' | 'never';
}

let shape: Shape = { chunks: 50, delayMs: 0 };
let open = 0;
let peakOpen = 0;
let requests = 0;

const usageFrame = USAGE_FRAME;
const doneFrame = DONE_FRAME;
let jsonBody = jsonCompletion();
const embeddingsBody = embeddingsAnswer();
let frames = contentFrames(shape.chunks);
let burst = sseStream(shape.chunks);
let burstNoUsage = sseStream(shape.chunks, false);

function configure(next: Shape) {
  shape = next;
  frames = contentFrames(shape.chunks);
  burst = sseStream(shape.chunks);
  burstNoUsage = sseStream(shape.chunks, false);
  jsonBody = jsonCompletion(shape.jsonWords);
  shapeFamilies(shape.chunks);
}

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

/** A stream paced by `delayMs`; counts itself in `open` while the client holds it. */
function pacedStream(withUsage: boolean, signal: AbortSignal) {
  const { delayMs } = shape;
  const list = withUsage ? [...frames, usageFrame, doneFrame] : [...frames, doneFrame];
  let i = 0;
  let counted = true;
  open++;
  if (open > peakOpen) peakOpen = open;
  const release = () => {
    if (counted) open--;
    counted = false;
  };
  signal.addEventListener('abort', release, { once: true });
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (i > 0) await Bun.sleep(delayMs);
      const next = list[i++];
      if (!next) {
        release();
        return controller.close();
      }
      controller.enqueue(next);
    },
    cancel: release,
  });
}

async function chat(req: Request) {
  requests++;
  const body = (await req.json()) as { stream?: boolean; stream_options?: { include_usage?: boolean } };
  if (!body.stream) return new Response(jsonBody, { headers: { 'content-type': 'application/json' } });
  const withUsage = shape.usage !== 'never' && body.stream_options?.include_usage === true;
  if (shape.delayMs === 0) {
    open++;
    if (open > peakOpen) peakOpen = open;
    open--;
    return new Response(withUsage ? burst : burstNoUsage, { headers: SSE_HEADERS });
  }
  return new Response(pacedStream(withUsage, req.signal), { headers: SSE_HEADERS });
}

const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: '127.0.0.1',
  idleTimeout: 0,
  async fetch(req) {
    const path = new URL(req.url).pathname;
    if (req.method === 'POST' && path.endsWith('/chat/completions')) return chat(req);
    if (req.method === 'POST' && path.endsWith('/embeddings')) {
      requests++;
      await req.arrayBuffer();
      return new Response(embeddingsBody, { headers: { 'content-type': 'application/json' } });
    }
    const image = req.method === 'POST' ? /\/images\/(generations|edits)$/.exec(path) : null;
    if (image) {
      requests++;
      return imageCall(req, image[1]!);
    }
    const family = req.method === 'POST' ? await familyCall(req, path) : null;
    if (family) {
      requests++;
      return family;
    }
    if (path === '/__bench/config' && req.method === 'POST') {
      configure((await req.json()) as Shape);
      return Response.json(shape);
    }
    if (path === '/__bench/stats') {
      const stats = { open, peakOpen, requests };
      if (new URL(req.url).searchParams.has('reset')) peakOpen = open;
      return Response.json(stats);
    }
    return new Response('not found', { status: 404 });
  },
});

process.stdout.write(`upstream listening on ${server.port}\n`);
process.on('SIGTERM', () => {
  server.stop(true);
  process.exit(0);
});
export {};
