import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestApp, type TestApp } from '../helpers/app';

/**
 * The docs page pre-fills "Try it out" with each request body's media-type `example`. On a
 * default start, every metered operation's example, sent as it is with the funded bootstrap
 * key, answers 2xx: the first click works. Read from the served OpenAPI JSON only.
 */
type Operation = {
  'x-svc-access'?: string;
  parameters?: { name: string; in: string; example?: string }[];
  requestBody?: { content?: Record<string, { example?: unknown }> };
};

/** Operations whose body the page cannot pre-fill: a file to choose, or raw document bytes. */
const NO_JSON_BODY: Record<string, string> = {
  'post /audio/transcriptions': 'multipart: an audio file to choose',
  'post /audio/voices': 'multipart: a voice sample to choose',
  'post /augment/text-parser': 'the document itself is the body',
};
/** Examples that fetch a public URL: 2xx with Internet access, else refused for that host only. */
const FETCHES_THE_INTERNET = new Set(['post /augment/scrape', 'post /video/transcriptions']);

describe('the docs page examples on a default start', () => {
  let t: TestApp;
  let ops: [string, string, Operation][] = [];

  beforeAll(async () => {
    t = await startTestApp();
    const doc = (await (await t.request('/openapi.json')).json()) as { paths: Record<string, Record<string, Operation>> };
    for (const [path, item] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(item))
        // The metered operations, and the quotes that price them.
        if (op.requestBody && (op['x-svc-access'] === 'INFERENCE' || path.endsWith('/quote'))) ops.push([method, path, op]);
  });
  afterAll(() => t.close());

  test('every metered operation with a JSON body has an example; the others are the known file and document uploads', () => {
    const withoutExample = ops
      .filter(([, , op]) => Object.entries(op.requestBody?.content ?? {})[0]?.[1]?.example === undefined)
      .map(([method, path]) => `${method} ${path}`);
    expect(withoutExample.sort()).toEqual(Object.keys(NO_JSON_BODY).sort());
    expect(ops.length).toBeGreaterThan(15);
  });

  test('each example, sent as it is with a funded key, answers 2xx', async () => {
    const failed: string[] = [];
    for (const [method, path, op] of ops) {
      const name = `${method} ${path}`;
      const [type, media] = Object.entries(op.requestBody?.content ?? {})[0] ?? [];
      if (media?.example === undefined) continue;
      // Path parameters as the page pre-fills them: their examples.
      const url = path.replace(/\{(\w+)\}/g, (_, p: string) => op.parameters?.find((x) => x.in === 'path' && x.name === p)?.example ?? p);
      const res = await t.request(url, {
        method: method.toUpperCase(),
        headers: { 'content-type': type! },
        body: JSON.stringify(media.example),
      });
      const body = await res.text();
      if (res.status < 300) continue;
      if (FETCHES_THE_INTERNET.has(name) && res.status === 400 && body.includes('example.com could not be resolved')) continue;
      failed.push(`${name}: ${res.status} ${body.slice(0, 200)}`);
    }
    expect(failed).toEqual([]);
  }, 120_000);
});

describe("the docs page examples on an operator's catalog", () => {
  test("name the operator's model of the same type (its default trait first) where the default catalog's is not served", async () => {
    const t = await startTestApp({
      config: {
        providers: [{ id: 'engine', kind: 'openai-compatible', baseURL: 'http://127.0.0.1:9/v1' }],
        models: [
          { id: 'my-small', type: 'text', routes: [{ provider: 'engine' }], pricing: {} },
          { id: 'my-large', type: 'text', routes: [{ provider: 'engine' }], pricing: {}, traits: ['default'] },
          { id: 'my-embedder', type: 'embedding', routes: [{ provider: 'engine' }], pricing: {} },
        ],
      },
    });
    try {
      const doc = (await (await t.request('/openapi.json')).json()) as {
        paths: Record<string, Record<string, { requestBody: { content: Record<string, { example: { model?: string } }> } }>>;
      };
      const model = (path: string) => doc.paths[path]!.post!.requestBody.content['application/json']!.example.model;
      expect([model('/chat/completions'), model('/responses'), model('/embeddings')]).toEqual(['my-large', 'my-large', 'my-embedder']);
      // No image model here: the example keeps the default catalog's (a 404 naming it, as any unknown model).
      expect(model('/image/generate')).toBe('z-image-turbo');
    } finally {
      await t.close();
    }
  });
});
