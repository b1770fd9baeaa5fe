import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import type { StageDurations } from '../../src/request-log/stages';
import { requestDetail, requestLogWritten } from '../helpers/request-log';

type Row = {
  requestId: string;
  at: string;
  latencyMs: number;
  stages: StageDurations | null;
  upstreamMs: number | null;
  cache: string | null;
  guardrails: string | null;
  stream: string | null;
};

const STAGES = ['auth_ms', 'admission_ms', 'plugins_ms', 'upstream_ttfb_ms', 'upstream_ms', 'settlement_ms'] as const;

for (const backend of BACKENDS) {
  describe(`request log stages and outcomes (${backend.name})`, () => {
    let upstream: FixtureUpstream;
    let t: TestApp;
    const chat = '/chat/completions';
    const body = { model: 'st-model', messages: [{ role: 'user', content: 'stages' }] };

    beforeAll(async () => {
      upstream = startUpstream('st');
      t = await startTestApp({
        backend,
        config: {
          providers: [fixtureProvider('st-up', upstream.url)],
          models: [fixtureModel('st-model', ['st-up'])],
          plugins: [{ name: 'cache' }],
        },
        fetch,
      });
    });
    afterAll(async () => {
      await t.close();
      await upstream.close();
    });

    const written = () => requestLogWritten(t);
    const detail = (id: string) => requestDetail<Row>(t, id);

    test('a streamed chat records every stage, in order, within its latency', async () => {
      const before = Date.now();
      const res = await t.request(chat, { method: 'POST', json: { ...body, stream: true } });
      await res.text();
      await written();
      const row = await detail(res.headers.get('cf-ray')!);
      expect(row.stream).toBe('complete');
      expect(Object.keys(row.stages!).sort()).toEqual([...STAGES].sort());
      for (const stage of STAGES) expect(row.stages![stage]).toBeNumber();
      const s = row.stages!;
      expect(s.upstream_ms!).toBeGreaterThanOrEqual(s.upstream_ttfb_ms!);
      expect(row.upstreamMs).toBe(Math.round(s.upstream_ms!));
      // The stages run one after the other: up to the stream's last byte they fit in the request's
      // latency (rounded to whole ms); the settlement starts there, after the client has its answer.
      const sum = s.auth_ms! + s.admission_ms! + s.plugins_ms! + s.upstream_ms!;
      expect(sum).toBeLessThanOrEqual(row.latencyMs + 1);
      expect(s.settlement_ms!).toBeGreaterThanOrEqual(0);
      expect(Date.parse(row.at)).toBeGreaterThanOrEqual(before - 1);
      expect(row.cache).toBeNull();
    });

    test('`at` is the arrival, not the end of the answer; the upstream time covers its wait', async () => {
      upstream.set({ headerDelayMs: 300 });
      try {
        const before = Date.now();
        const res = await t.request(chat, { method: 'POST', json: body });
        expect(res.status).toBe(200);
        await written();
        const row = await detail(res.headers.get('cf-ray')!);
        expect(Date.parse(row.at) - before).toBeLessThan(150);
        expect(row.latencyMs).toBeGreaterThanOrEqual(300);
        expect(row.upstreamMs).toBeGreaterThanOrEqual(299);
        expect(row.stages!.upstream_ttfb_ms).toBeGreaterThanOrEqual(299);
      } finally {
        upstream.set({});
      }
    });

    test('the cache outcome is recorded and filterable; a hit has no upstream stage', async () => {
      const cached = { ...body, messages: [{ role: 'user', content: `cache ${backend.name}` }], svc_parameters: { cache: 'use' } };
      const miss = await t.request(chat, { method: 'POST', json: cached });
      expect(miss.status).toBe(200);
      const hit = await t.request(chat, { method: 'POST', json: cached });
      expect(hit.headers.get('x-svc-cache')).toBe('HIT');
      await written();
      const missRow = await detail(miss.headers.get('cf-ray')!);
      const hitRow = await detail(hit.headers.get('cf-ray')!);
      expect(missRow.cache).toBe('MISS');
      expect(missRow.upstreamMs).toBeNumber();
      expect(hitRow.cache).toBe('HIT');
      expect(hitRow.upstreamMs).toBeNull();
      expect(hitRow.stages!.upstream_ms).toBeNull();
      expect(hitRow.stages!.plugins_ms).toBeNumber();
      const res = await t.request('/admin/requests?cache=hit');
      const page = (await res.json()) as { data: Row[] };
      expect(page.data.map((r) => r.requestId)).toEqual([hitRow.requestId]);
      const none = (await (await t.request('/admin/requests?guardrails=deny')).json()) as { data: Row[] };
      expect(none.data).toEqual([]);
    });
  });
}
