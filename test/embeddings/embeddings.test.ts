import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import OpenAI from 'openai';
import { createApiKey } from '../../src/auth/api-keys';
import { createAccount } from '../../src/auth/bootstrap';
import { ledgerLines } from '../../src/db/schema';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { fixtureModel } from '../chat/helpers';
import type { FixtureUpstream } from '../fixtures/openai-upstream';
import { EMB, startEmbeddingsApp, type EmbeddingsApp } from './helpers';

for (const backend of BACKENDS) {
  describe(`POST /embeddings on ${backend.name}`, () => {
    let app: EmbeddingsApp;
    let t: TestApp;
    let a: FixtureUpstream;
    let b: FixtureUpstream;
    let client: OpenAI;
    let inferenceKey: string;

    beforeAll(async () => {
      app = await startEmbeddingsApp(backend, [fixtureModel('chat', ['a'])]);
      ({ t, a, b, client } = app);
      inferenceKey = (
        await (await t.request('/api_keys', { method: 'POST', json: { apiKeyType: 'INFERENCE', description: 'emb' } })).json()
      ).data.apiKey;
    });
    afterAll(() => app.close());
    beforeEach(() => {
      a.set({});
      b.set({});
    });

    const embed = (json: unknown, key?: string | null) => t.request('/embeddings', { method: 'POST', json, key });
    const usd = async () => (await (await t.request('/billing/balance')).json()).balances.usd as number;
    const ledgerOf = async (requestId: string) => {
      await t.deps.meter.flush();
      return t.deps.storage.db.select().from(ledgerLines).where(eq(ledgerLines.requestId, requestId));
    };

    test('the official SDK: floats, and base64 (its default) decoded to the same floats; the ledger holds the charge', async () => {
      const floats = await client.embeddings.create({ model: EMB, input: ['one', 'two'], encoding_format: 'float' });
      expect(floats.object).toBe('list');
      expect(floats.model).toBe(EMB);
      expect(floats.data.map((d) => d.index)).toEqual([0, 1]);
      expect(floats.data[0]?.embedding).toHaveLength(8);
      expect(floats.usage).toEqual({ prompt_tokens: 6, total_tokens: 6 });
      const decoded = await client.embeddings.create({ model: EMB, input: ['one', 'two'] });
      for (const [i, d] of decoded.data.entries())
        for (const [k, x] of d.embedding.entries()) expect(x).toBeCloseTo(floats.data[i]!.embedding[k]!, 6);

      const raw = await client.embeddings.create({ model: EMB, input: 'one', encoding_format: 'base64' }).withResponse();
      const requestId = raw.response.headers.get('cf-ray') as string;
      const rows = await ledgerOf(requestId);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ sku: `${EMB}-embedding-input-mtoken`, amountMicros: -3, currency: 'USD', promptTokens: 3 });
    });

    test('model, router, rate-limit and balance headers; upstream asked for floats under its own model name', async () => {
      const res = await embed({ model: EMB, input: 'hello', dimensions: 4 });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-svc-model-id')).toBe(EMB);
      expect(['a', 'b']).toContain(res.headers.get('x-svc-model-router') as string);
      expect(res.headers.get('x-ratelimit-limit-requests')).toBe('500');
      expect(res.headers.get('x-svc-balance-usd')).toMatch(/^\d+\.\d{6}$/);
      const body = await res.json();
      expect(body.data[0].embedding).toHaveLength(4);
      const sent = (res.headers.get('x-svc-model-router') === 'a' ? a : b).requests.at(-1);
      expect(sent?.path).toBe('/v1/embeddings');
      expect(sent?.body).toMatchObject({ input: 'hello', dimensions: 4, encoding_format: 'float' });
      expect(['a-model', 'b-model']).toContain(sent?.body.model as string);
    });

    test('token arrays are accepted; an upstream without usage is billed by svc count', async () => {
      a.set({ noUsage: true });
      b.set({ noUsage: true });
      const res = await embed({ model: EMB, input: [[1, 2, 3, 4, 5]] });
      expect(res.status).toBe(200);
      expect((await res.json()).usage).toEqual({ prompt_tokens: 5, total_tokens: 5 });
      expect((await ledgerOf(res.headers.get('cf-ray') as string))[0]?.amountMicros).toBe(-5);
    });

    test('a second capability through the same router: a failing replica is retried on the other', async () => {
      a.set({ status: 500 });
      for (let i = 0; i < 4; i++) {
        const res = await embed({ model: EMB, input: 'x' });
        expect(res.status).toBe(200);
        expect(res.headers.get('x-svc-model-router')).toBe('b');
      }
    });

    const badInputs: [string, Record<string, unknown>, string][] = [
      ['an empty string', { model: EMB, input: '' }, 'input'],
      ['an empty array', { model: EMB, input: [] }, 'input'],
      ['2049 inputs', { model: EMB, input: Array.from({ length: 2049 }, () => 'x') }, 'input'],
      ['a missing input', { model: EMB }, 'input'],
      ['a chat model', { model: 'chat', input: 'x' }, 'model'],
      ['dimensions 0', { model: EMB, input: 'x', dimensions: 0 }, 'dimensions'],
      ["dimensions above the model's", { model: EMB, input: 'x', dimensions: 9 }, 'dimensions'],
      ['an unknown encoding_format', { model: EMB, input: 'x', encoding_format: 'int8' }, 'encoding_format'],
    ];
    for (const [what, json, field] of badInputs)
      test(`${what} is a 400 naming ${field}; nothing is charged`, async () => {
        const before = await usd();
        const res = await embed(json);
        expect(res.status).toBe(400);
        const body = await res.json();
        expect(body.error).toContain(field);
        expect(JSON.stringify(body.details ?? {})).toContain(field);
        expect(await usd()).toBe(before);
      });

    test('an unknown top-level field is dropped, not forwarded (as chat does)', async () => {
      const res = await embed({ model: EMB, input: 'x', colour: 'red' });
      expect(res.status).toBe(200);
      const sent = (res.headers.get('x-svc-model-router') === 'a' ? a : b).requests.at(-1);
      expect(sent?.body.colour).toBeUndefined();
    });

    test('unknown model: 404 StandardError', async () => {
      const res = await embed({ model: 'nope', input: 'x' });
      expect(res.status).toBe(404);
      expect(Object.keys(await res.json())).toEqual(['error']);
    });

    test('auth: 401 without a key or with a bad one; an INFERENCE key may embed', async () => {
      expect((await embed({ model: EMB, input: 'x' }, null)).status).toBe(401);
      expect((await embed({ model: EMB, input: 'x' }, 'svc_not-a-key')).status).toBe(401);
      expect((await embed({ model: EMB, input: 'x' }, inferenceKey)).status).toBe(200);
    });

    test('402 for an empty account, 429 over the Embedding requests-per-minute limit', async () => {
      const db = t.deps.storage.db;
      const broke = await createAccount(db, { creditUsd: '0' });
      const brokeKey = (await createApiKey(db, { accountId: broke, type: 'INFERENCE' })).secret;
      expect((await embed({ model: EMB, input: 'x' }, brokeKey)).status).toBe(402);

      const limited = await createAccount(db, { creditUsd: '10' });
      const limitedKey = (await createApiKey(db, { accountId: limited, type: 'INFERENCE' })).secret;
      const put = await t.request(`/admin/accounts/${limited}/rate_limits`, { method: 'PUT', json: { overrides: { embedding: 2 } } });
      expect(put.status).toBe(200);
      expect((await embed({ model: EMB, input: 'x' }, limitedKey)).status).toBe(200);
      expect((await embed({ model: EMB, input: 'x' }, limitedKey)).status).toBe(200);
      const refused = await embed({ model: EMB, input: 'x' }, limitedKey);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('x-ratelimit-limit-requests')).toBe('2');
    });

    test('upstream 5xx on every replica: 502, nothing charged', async () => {
      a.set({ status: 500 });
      b.set({ status: 502 });
      const before = await usd();
      const res = await embed({ model: EMB, input: 'x' });
      expect(res.status).toBe(502);
      expect((await res.json()).error).toContain('Upstream error');
      expect(await ledgerOf(res.headers.get('cf-ray') as string)).toHaveLength(0);
      expect(await usd()).toBe(before);
    });

    test('a hanging upstream: 504 after the provider timeout, nothing charged', async () => {
      a.set({ hang: true });
      b.set({ hang: true });
      const before = await usd();
      const res = await embed({ model: EMB, input: 'x' });
      expect(res.status).toBe(504);
      expect(await ledgerOf(res.headers.get('cf-ray') as string)).toHaveLength(0);
      expect(await usd()).toBe(before);
    });

    test('GET /models/{id}: the SDK retrieves a record; an unknown id is a 404 StandardError', async () => {
      const model = await client.models.retrieve(EMB);
      expect(model).toMatchObject({ id: EMB, object: 'model', type: 'embedding' });
      const missing = await t.request('/models/nope', { key: null });
      expect(missing.status).toBe(404);
      expect(Object.keys(await missing.json())).toEqual(['error']);
    });
  });
}

describe('the simulator on a fresh start', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  const vectors = async (json: Record<string, unknown>) => {
    const res = await t.request('/embeddings', { method: 'POST', json: { model: 'text-embedding-bge-m3', ...json } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-svc-model-router')).toBe('simulator');
    return (await res.json()).data.map((d: { embedding: number[] }) => d.embedding) as number[][];
  };
  const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

  test('deterministic unit vectors of the model dimension; equal inputs equal vectors, others differ', async () => {
    const [x, y, x2] = (await vectors({ input: ['cats', 'dogs', 'cats'] })) as [number[], number[], number[]];
    expect(x).toHaveLength(1024);
    expect(norm(x)).toBeCloseTo(1, 6);
    expect(x2).toEqual(x);
    expect(y).not.toEqual(x);
    const [again] = await vectors({ input: 'cats' });
    expect(again).toEqual(x);
    const [small] = (await vectors({ input: 'cats', dimensions: 16 })) as [number[]];
    expect(small).toHaveLength(16);
    expect(norm(small)).toBeCloseTo(1, 6);
  });

  test('the OpenAPI description lists POST /embeddings and GET /models/{id}', async () => {
    const doc = await (await t.request('/openapi.json', { key: null })).json();
    expect(doc.paths['/embeddings'].post.operationId).toBe('createEmbedding');
    expect(doc.paths['/embeddings'].post.responses['200']).toBeDefined();
    expect(doc.paths['/models/{id}'].get.operationId).toBe('retrieveModel');
  });

  test('the OpenAI alias resolves, and /models says the model is simulated', async () => {
    expect(await vectors({ model: 'text-embedding-3-small', input: 'x' })).toHaveLength(1);
    const record = await (await t.request('/models/text-embedding-bge-m3', { key: null })).json();
    expect(record.model_spec.simulator).toBe(true);
  });
});
