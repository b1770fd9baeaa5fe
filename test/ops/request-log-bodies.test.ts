import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createApp } from '../../src/app';
import { requestLogBodies } from '../../src/db/schema';
import { cutUtf8, storedBody } from '../../src/request-log/bodies';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { requestDetail, requestLogWritten } from '../helpers/request-log';

type Bodies = { request: string | null; requestTruncated: boolean; response: string | null; responseTruncated: boolean };
type Detail = { requestId: string; status: number; bodies?: Bodies };

const EMAIL = 'jane.doe@example.com';
const CARD = '4111 1111 1111 1111';

describe('stored bodies: redaction and the cap', () => {
  test('every PII class the pii guardrail knows is replaced before the cut', () => {
    const { text } = storedBody({ content: `mail ${EMAIL}, card ${CARD}` }, 1024);
    expect(text).toBe(JSON.stringify({ content: 'mail [EMAIL_1], card [CARD_1]' }));
  });

  test('a cut is marked and never splits a character; a value on the edge is redacted whole', () => {
    const cut = cutUtf8('é'.repeat(300), 301);
    expect(cut.truncated).toBe(true);
    expect(cut.text).toBe('é'.repeat(150) + '…[truncated]');
    expect(cutUtf8('short', 256)).toEqual({ text: 'short', truncated: false });
    // The address straddles byte 256: the stored prefix holds its placeholder's start, never the address's.
    const edge = storedBody('x'.repeat(250) + ` ${EMAIL} ` + 'y'.repeat(5000), 256);
    expect(edge.truncated).toBe(true);
    expect(edge.text).not.toContain('jane');
    expect(Buffer.byteLength(edge.text!.replace('…[truncated]', ''))).toBeLessThanOrEqual(256);
  });
});

for (const backend of BACKENDS) {
  describe(`request log bodies (${backend.name})`, () => {
    let upstream: FixtureUpstream;
    let long: FixtureUpstream;
    let t: TestApp;
    let captured: ReturnType<typeof createApp>;
    let listedKey = '';
    let listedId = '';
    let otherKey = '';
    const chat = { model: 'rb-model', messages: [{ role: 'user', content: `Reach me at ${EMAIL} or pay with ${CARD}` }] };

    beforeAll(async () => {
      upstream = startUpstream('rb', { tokens: ['Noted: ', 'write to ', 'ops@example.org', ' anytime'] });
      // Paced, so the proxy reads it as 4 KiB pieces: on a busy machine the whole stream could
      // arrive as one read, kept whole as one region (the cap is checked per region).
      long = startUpstream('rb-long', { tokens: Array.from({ length: 3000 }, (_, i) => ` word${i}`), splitBytes: 4096, chunkDelayMs: 1 });
      t = await startTestApp({
        backend,
        config: {
          providers: [fixtureProvider('rb-up', upstream.url), fixtureProvider('rb-long-up', long.url)],
          models: [fixtureModel('rb-model', ['rb-up']), fixtureModel('rb-long', ['rb-long-up'])],
        },
        fetch,
      });
      const make = async (description: string) => {
        const res = await t.request('/api_keys', { method: 'POST', json: { apiKeyType: 'INFERENCE', description } });
        return ((await res.json()) as { data: { apiKey: string; id: string } }).data;
      };
      const listed = await make('captured');
      listedKey = listed.apiKey;
      listedId = listed.id;
      otherKey = (await make('not captured')).apiKey;
      // The operator lists the key in the config (read at start): the same storage, an app built with it.
      const requestLog = { bodies: { keys: [listed.id], maxBytes: 2048 } };
      captured = createApp({ ...t.deps, config: { ...t.deps.config, observability: { ...t.deps.config.observability, requestLog } } });
    });
    afterAll(async () => {
      await t.close();
      await upstream.close();
      await long.close();
    });

    const send = (key: string, json: unknown, headers: Record<string, string> = {}) =>
      captured.handle(
        new Request('http://localhost/api/v1/chat/completions', {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
          body: JSON.stringify(json),
        }),
      );
    const written = () => requestLogWritten(t);
    const detail = (id: string) => requestDetail<Detail>(t, id);

    test("a listed key's request and JSON answer are stored redacted; another key's are not", async () => {
      const mine = await send(listedKey, chat);
      expect(mine.status).toBe(200);
      await mine.text();
      const theirs = await send(otherKey, chat);
      await theirs.text();
      await written();

      const { bodies } = await detail(mine.headers.get('cf-ray')!);
      expect(bodies).toBeDefined();
      expect(bodies!.requestTruncated).toBe(false);
      expect(JSON.parse(bodies!.request!).messages[0].content).toBe('Reach me at [EMAIL_1] or pay with [CARD_1]');
      const answer = JSON.parse(bodies!.response!) as { choices: { message: { content: string } }[] };
      expect(answer.choices[0]!.message.content).toBe('Noted: write to [EMAIL_1] anytime');
      for (const secret of [EMAIL, CARD, 'ops@example.org']) expect(JSON.stringify(bodies)).not.toContain(secret);

      expect((await detail(theirs.headers.get('cf-ray')!)).bodies).toBeUndefined();

      // A refusal: the request as sent and the `{ error }` it got.
      const refused = await send(listedKey, { ...chat, model: 'rb-none' });
      expect(refused.status).toBe(404);
      await written();
      const failed = (await detail(refused.headers.get('cf-ray')!)).bodies!;
      expect(JSON.parse(failed.request!).model).toBe('rb-none');
      expect((JSON.parse(failed.response!) as { error: string }).error).toContain('rb-none');
    });

    test("a stream's text is stored concatenated; a body past the cap is cut and marked", async () => {
      const streamed = await send(listedKey, { ...chat, stream: true });
      expect(await streamed.text()).toContain('ops@example.org'); // the client gets the answer as it is
      const long = await send(listedKey, { ...chat, messages: [{ role: 'user', content: 'z'.repeat(5000) }] });
      await long.text();
      await written();

      const stream = (await detail(streamed.headers.get('cf-ray')!)).bodies!;
      expect(stream.response).toBe('Noted: write to [EMAIL_1] anytime');
      const cut = (await detail(long.headers.get('cf-ray')!)).bodies!;
      expect(cut.requestTruncated).toBe(true);
      expect(cut.request!.endsWith('…[truncated]')).toBe(true);
      expect(Buffer.byteLength(cut.request!)).toBeLessThanOrEqual(2048 + Buffer.byteLength('…[truncated]'));
      expect(cut.responseTruncated).toBe(false);
    });

    test('a long answer, compressed on the way out, is stored as the JSON it was (kept before it became bytes), cut', async () => {
      const res = await send(listedKey, { ...chat, model: 'rb-long' }, { 'accept-encoding': 'gzip' });
      expect(res.headers.get('content-encoding')).toBe('gzip');
      await res.arrayBuffer();
      await written();
      const { response, responseTruncated } = (await detail(res.headers.get('cf-ray')!)).bodies!;
      expect(responseTruncated).toBe(true);
      expect(response!.startsWith('{"id":')).toBe(true);
      expect(response).toContain(' word1 word2');
    });

    test('a stream longer than what the proxy keeps is stored up to there, marked cut, under a larger cap', async () => {
      const requestLog = { bodies: { keys: [listedId], maxBytes: 1_048_576 } };
      const roomy = createApp({ ...t.deps, config: { ...t.deps.config, observability: { ...t.deps.config.observability, requestLog } } });
      const res = await roomy.handle(
        new Request('http://localhost/api/v1/chat/completions', {
          method: 'POST',
          headers: { authorization: `Bearer ${listedKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ ...chat, model: 'rb-long', stream: true }),
        }),
      );
      expect(await res.text()).toContain(' word2999');
      await written();
      const { response, responseTruncated } = (await detail(res.headers.get('cf-ray')!)).bodies!;
      expect(response!.startsWith(' word0 word1 word2')).toBe(true);
      expect(response).not.toContain(' word2999');
      expect(response!.endsWith('…[truncated]')).toBe(true);
      expect(responseTruncated).toBe(true);
    });

    test('without a list nothing is stored; the retention sweep removes stored bodies with their rows', async () => {
      const plain = await t.request('/chat/completions', { method: 'POST', key: listedKey, json: chat });
      await plain.text();
      await written();
      expect((await detail(plain.headers.get('cf-ray')!)).bodies).toBeUndefined();

      const count = async () => {
        const result = await t.deps.storage.db.execute(sql`select count(*)::int as n from ${requestLogBodies}`);
        const rows = (Array.isArray(result) ? result : (result as { rows: { n: number }[] }).rows) as { n: number }[];
        return Number(rows[0]!.n);
      };
      expect(await count()).toBe(6);
      await t.deps.observability!.recorder!.sweep(Date.now() + 29 * 86_400_000);
      expect(await count()).toBe(6);
      await t.deps.observability!.recorder!.sweep(Date.now() + 31 * 86_400_000);
      expect(await count()).toBe(0);
    });
  });
}
