import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import type { RequestRecord } from '../../src/request-log/writer';
import { requestLogWritten } from '../helpers/request-log';

type Row = RequestRecord & { at: string; ledger?: { requestId: string; amountMicros: number }[] };
type Page = { data: Row[]; next: string | null };

for (const backend of BACKENDS) {
  describe(`request log (${backend.name})`, () => {
    let upstream: FixtureUpstream;
    let t: TestApp;
    let inference: string;
    let inferenceId: string;
    const chat = '/chat/completions';
    const body = { model: 'rl-model', messages: [{ role: 'user', content: 'hi' }] };

    beforeAll(async () => {
      upstream = startUpstream('rl');
      t = await startTestApp({
        backend,
        config: { providers: [fixtureProvider('rl-up', upstream.url)], models: [fixtureModel('rl-model', ['rl-up'])] },
        fetch,
      });
      const created = await t.request('/api_keys', { method: 'POST', json: { apiKeyType: 'INFERENCE', description: 'rl' } });
      const data = ((await created.json()) as { data: { apiKey: string; id: string } }).data;
      inference = data.apiKey;
      inferenceId = data.id;
    });
    afterAll(async () => {
      await t.close();
      await upstream.close();
    });

    const written = () => requestLogWritten(t);
    const list = async (query: string) => {
      const res = await t.request(`/admin/requests${query}`);
      expect(res.status).toBe(200);
      return (await res.json()) as Page;
    };

    test('one record per request: a chat, a stream, a refusal; searchable by key, status class and route, with its ledger rows', async () => {
      const ok = await t.request(chat, { method: 'POST', key: inference, json: body, headers: { 'user-agent': 'rl-test/1' } });
      expect(ok.status).toBe(200);
      const okId = ok.headers.get('cf-ray')!;
      const streamed = await t.request(chat, { method: 'POST', key: inference, json: { ...body, stream: true } });
      await streamed.text();
      const refused = await t.request(chat, { method: 'POST', key: inference, json: { ...body, model: 'no-such-model' } });
      expect(refused.status).toBe(404);
      const refusedId = refused.headers.get('cf-ray')!;
      await written();

      const byKey = await list(`?key=${inferenceId}`);
      expect(byKey.data.map((r) => r.requestId)).toContain(okId);
      expect(byKey.data).toHaveLength(3);
      for (const r of byKey.data) expect(JSON.stringify(r)).not.toContain(inference);
      const first = byKey.data.find((r) => r.requestId === okId)!;
      expect(first).toMatchObject({
        method: 'POST',
        route: '/api/v1/chat/completions',
        model: 'rl-model',
        status: 200,
        userAgent: 'rl-test/1',
      });
      expect(first.replica).toBeString();
      expect(first.promptTokens).toBeGreaterThan(0);
      expect(first.completionTokens).toBe(5);
      expect(first.costMicros).toBeGreaterThan(0);
      expect(first.currency).toBe('USD');
      const stream = byKey.data.find((r) => r.stream !== null)!;
      expect(stream).toMatchObject({ stream: 'complete', status: 200, completionTokens: 5 });
      expect(stream.ttfbMs).toBeNumber();
      expect(stream.costMicros).toBeGreaterThan(0);

      const failed = await list(`?key=${inferenceId}&status=4xx`);
      expect(failed.data.map((r) => r.requestId)).toEqual([refusedId]);
      expect(failed.data[0]!.error).toContain('no-such-model');
      expect((await list(`?key=${inferenceId}&error=NO-SUCH`)).data).toHaveLength(1);
      expect((await list(`?key=${inferenceId}&status=5xx`)).data).toHaveLength(0);
      expect((await list(`?key=${inferenceId}&minLatencyMs=600000`)).data).toHaveLength(0);
      expect((await list(`?route=${encodeURIComponent('/api/v1/api_keys')}`)).data.length).toBeGreaterThan(0);

      // Keyset pages: three pages of one, in order, then none.
      const seen: string[] = [];
      let next: string | null = '';
      while (next !== null) {
        const page: Page = await list(`?key=${inferenceId}&limit=1${next ? `&after=${next}` : ''}`);
        seen.push(...page.data.map((r) => r.requestId));
        next = page.next;
      }
      expect(seen).toEqual(byKey.data.map((r) => r.requestId));

      const detail = await t.request(`/admin/requests/${okId}`);
      expect(detail.status).toBe(200);
      const d = (await detail.json()) as Row;
      expect(d.ledger).toHaveLength(1);
      // The ledger debits the account: the charge is negative there.
      expect(-d.ledger![0]!.amountMicros).toBe(first.costMicros!);
      expect((await t.request('/admin/requests/nope')).status).toBe(404);
    });

    test('an INFERENCE key gets 403; a bad cursor or status is a 400 naming the field', async () => {
      expect((await t.request('/admin/requests', { key: inference })).status).toBe(403);
      expect((await t.request('/admin/requests/x', { key: inference })).status).toBe(403);
      const bad = await t.request('/admin/requests?after=zzz');
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: string }).error).toContain('after');
      expect((await t.request('/admin/requests?status=6xx')).status).toBe(400);
    });

    test('a row the database refuses is dropped and the rows queued with it and after it are written', async () => {
      const recorder = t.deps.observability!.recorder!;
      const row = (id: string, accountId: string | null): RequestRecord => ({
        requestId: id,
        at: t.deps.now(),
        accountId,
        apiKeyId: null,
        method: 'GET',
        route: '/x',
        model: null,
        replica: null,
        status: 200,
        error: null,
        latencyMs: 1,
        ttfbMs: null,
        stream: null,
        stages: null,
        upstreamMs: null,
        cache: null,
        guardrails: null,
        promptTokens: null,
        completionTokens: null,
        costMicros: null,
        currency: null,
        clientIp: null,
        userAgent: null,
      });
      recorder.add(row('rl-good-1', null));
      recorder.add(row('rl-bad', 'not-a-uuid'));
      recorder.add(row('rl-good-2', null));
      await recorder.flush();
      recorder.add(row('rl-good-3', null));
      await recorder.flush();
      const ids = (await list('?route=%2Fx')).data.map((r) => r.requestId);
      expect(ids.sort()).toEqual(['rl-good-1', 'rl-good-2', 'rl-good-3']);
      // A batch retried after a lost answer: the id already logged is skipped (on the embedded
      // database the batch's COPY fails whole and the statement that skips it takes over), the new one written.
      recorder.add({ ...row('rl-good-1', null), status: 500 });
      recorder.add(row('rl-good-4', null));
      await recorder.flush();
      const again = (await list('?route=%2Fx')).data;
      expect(again.map((r) => r.requestId).sort()).toEqual(['rl-good-1', 'rl-good-2', 'rl-good-3', 'rl-good-4']);
      expect(again.find((r) => r.requestId === 'rl-good-1')!.status).toBe(200);
    });

    test('an error that echoes a NUL is logged, shown as U+FFFD (Postgres refuses NUL in text: the row was dropped)', async () => {
      const bodies: [unknown, number][] = [
        // An unknown model's 404 echoes its name.
        [{ model: 'no\u0000such', messages: [{ role: 'user', content: 'x' }] }, 404],
      ];
      for (const [json, status] of bodies) {
        const res = await t.request('/chat/completions', { method: 'POST', json });
        expect(res.status).toBe(status);
        const id = res.headers.get('cf-ray')!;
        await written();
        const detail = await t.request(`/admin/requests/${id}`);
        expect(detail.status).toBe(200);
        expect(JSON.stringify(await detail.json())).toContain('\ufffd');
      }
    });

    test('rows older than the retention are gone after the sweep, newer ones stay', async () => {
      const recorder = t.deps.observability!.recorder!;
      const before = (await list('?limit=500')).data.length;
      expect(before).toBeGreaterThan(0);
      expect(await recorder.sweep(Date.now() + 29 * 86_400_000)).toBe(0);
      expect(await recorder.sweep(Date.now() + 31 * 86_400_000)).toBe(before);
      expect((await list('')).data).toHaveLength(0);
    });
  });
}
