import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { parseConfig } from '../../src/config';
import { ledgerLines } from '../../src/db/schema';
import { createLogger } from '../../src/log';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';

/** Provider `small`'s limit for chat and embeddings answers, in bytes. */
const LIMIT = 64 * 1024;
const SECRET_KEY = 'sk-upstream-secret-never-logged';

/** A JSON body of `bytes` bytes: one long string field, so it parses if it is read. */
const bigJson = (bytes: number) => `{"pad":"${'x'.repeat(bytes - 10)}"}`;

/** A 200 body of 16 KB pieces that never ends; the fixture notes when svc walks away. */
function endless(status = 200): Response {
  const piece = new TextEncoder().encode('x'.repeat(16 * 1024));
  return new Response(new ReadableStream<Uint8Array>({ pull: (c) => c.enqueue(piece) }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

for (const backend of BACKENDS) {
  describe(`upstream answers over their size limit, on ${backend.name}`, () => {
    let t: TestApp;
    let small: FixtureUpstream;
    let plain: FixtureUpstream;
    const logged: string[] = [];

    beforeAll(async () => {
      small = startUpstream('small');
      plain = startUpstream('plain');
      t = await startTestApp({
        backend,
        log: createLogger('warn', (line) => logged.push(line)),
        config: {
          providers: [
            { ...fixtureProvider('small', small.url, 10_000), apiKey: SECRET_KEY, maxResponseBytes: { chat: LIMIT, embed: LIMIT } },
            fixtureProvider('plain', plain.url, 10_000),
          ],
          models: [
            fixtureModel('chat', ['small']),
            fixtureModel('two', ['small', 'plain']),
            fixtureModel('emb', ['small'], { type: 'embedding', pricing: { input: '1' }, dimensions: 8 }),
          ],
        },
      });
    });
    afterAll(async () => {
      await t.close();
      await small.close();
      await plain.close();
    });
    beforeEach(() => {
      small.set({});
      plain.set({});
    });

    const chat = (model = 'chat') =>
      t.request('/chat/completions', { method: 'POST', json: { model, messages: [{ role: 'user', content: 'hi' }] } });
    const embed = () => t.request('/embeddings', { method: 'POST', json: { model: 'emb', input: 'hi', encoding_format: 'float' } });
    const usd = async () => (await (await t.request('/billing/balance')).json()).balances.usd as number;
    const ledgerOf = async (res: Response) => {
      await t.deps.meter.flush();
      const requestId = res.headers.get('cf-ray') as string;
      expect(requestId).toBeTruthy();
      return t.deps.storage.db.select().from(ledgerLines).where(eq(ledgerLines.requestId, requestId));
    };

    /** `send` fails with a 502 naming the limit, charges nothing, and logs the provider without its key. */
    async function refusedUncharged(send: () => Promise<Response>) {
      const before = await usd();
      logged.length = 0;
      const res = await send();
      expect(res.status).toBe(502);
      expect((await res.json()).error).toBe(`Upstream error: the upstream answer is larger than ${LIMIT} bytes. Please retry.`);
      expect(await ledgerOf(res)).toHaveLength(0);
      expect(await usd()).toBe(before);
      const line = logged.find((l) => l.includes('over its size limit'));
      expect(line).toContain('"provider":"small"');
      expect(logged.join('\n')).not.toContain(SECRET_KEY);
    }

    test('answers within the limit are read and charged as before', async () => {
      const res = await chat();
      expect(res.status).toBe(200);
      expect((await res.json()).choices[0].message.content).toBe('Hello from the fixture.');
      expect((await ledgerOf(res)).length).toBeGreaterThan(0);
      const emb = await embed();
      expect(emb.status).toBe(200);
      expect((await emb.json()).data[0].embedding).toHaveLength(8);
    });

    test('a chat answer whose Content-Length is over the limit: 502, nothing charged', async () => {
      small.set({ respond: () => new Response(bigJson(LIMIT + 1), { headers: { 'content-type': 'application/json' } }) });
      await refusedUncharged(() => chat());
    });

    test('a chunked chat answer without Content-Length that never ends: a prompt 502, and svc hangs up', async () => {
      small.set({ respond: () => endless() });
      const hungUp = small.nextAbort();
      const started = Date.now();
      await refusedUncharged(() => chat());
      expect(Date.now() - started).toBeLessThan(5_000);
      await hungUp;
    });

    test('a small compressed body that inflates past the limit: its Content-Length is not trusted', async () => {
      const gzipped = Bun.gzipSync(new TextEncoder().encode(bigJson(1024 * 1024)));
      expect(gzipped.byteLength).toBeLessThan(LIMIT);
      small.set({ respond: () => new Response(gzipped, { headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' } }) });
      await refusedUncharged(() => chat());
    });

    test('oversized embeddings, with and without Content-Length: 502, nothing charged', async () => {
      small.set({ respond: () => new Response(bigJson(2 * LIMIT), { headers: { 'content-type': 'application/json' } }) });
      await refusedUncharged(() => embed());
      small.set({ respond: () => endless() });
      await refusedUncharged(() => embed());
    });

    test('an answer over the limit is a broken answer: the next replica answers', async () => {
      small.set({ respond: () => endless() });
      for (let i = 0; i < 3; i++) {
        const res = await chat('two');
        expect(res.status).toBe(200);
        expect(res.headers.get('x-svc-model-router')).toBe('plain');
      }
      expect(small.requests.length).toBeGreaterThan(0);
    });

    test('an error body that never ends is not read whole: the status is answered at once', async () => {
      small.set({ respond: () => endless(500) });
      const started = Date.now();
      const res = await chat();
      expect(res.status).toBe(502);
      expect((await res.json()).error).toContain('the upstream answered 500');
      small.set({ respond: () => endless(400) });
      const refused = await chat();
      expect(refused.status).toBe(400);
      expect((await refused.json()).error).toBe('The upstream rejected the request: HTTP 400');
      expect(Date.now() - started).toBeLessThan(5_000);
    });
  });
}

test('maxResponseBytes names capabilities; a misspelt one stops the start', () => {
  const provider = { id: 'p', kind: 'openai-compatible', baseURL: 'http://127.0.0.1:1/v1' };
  expect(() => parseConfig({ providers: [{ ...provider, maxResponseBytes: { chta: 1_000_000 } }] })).toThrow(
    'unknown field "providers.0.maxResponseBytes.chta" (did you mean "chat"?)',
  );
  expect(() => parseConfig({ providers: [{ ...provider, maxResponseBytes: { chat: 10 } }] })).toThrow('providers.0.maxResponseBytes.chat');
});
