import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import OpenAI from 'openai';
import { createLogger } from '../../src/log';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';

/** The value of one sample of the Prometheus text, 0 when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const m = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = (m[2] ?? '').split(',');
    if (want.every((w) => have.includes(w))) return Number(m[3]);
  }
  return 0;
}

describe('metrics, access log, request id', () => {
  let upstream: FixtureUpstream;
  let t: TestApp;
  const lines: Record<string, unknown>[] = [];
  const chat = '/api/v1/chat/completions';

  beforeAll(async () => {
    upstream = startUpstream('obs');
    t = await startTestApp({
      config: { providers: [fixtureProvider('obs-up', upstream.url)], models: [fixtureModel('obs-model', ['obs-up'])] },
      fetch,
      log: createLogger('info', (line) => void lines.push(JSON.parse(line))),
    });
  });
  afterAll(async () => {
    await t.close();
    await upstream.close();
  });

  // After-response hooks run in a setImmediate after the response is handed over.
  const afterResponses = () => new Promise((resolve) => setImmediate(resolve));
  const metrics = async () => {
    await afterResponses();
    return (await t.app.handle(new Request('http://localhost/metrics'))).text();
  };
  const accessLines = (requestId: string) => lines.filter((l) => l.msg === 'request' && l.requestId === requestId);

  test('/metrics shows request counters, tokens and charges rising after a chat (JSON and stream)', async () => {
    const before = await metrics();
    const client = new OpenAI({
      apiKey: t.adminKey,
      baseURL: 'http://svc.test/api/v1',
      fetch: (url, init) => t.app.handle(new Request(url, init)),
    });
    const done = await client.chat.completions.create({ model: 'obs-model', messages: [{ role: 'user', content: 'hi' }] });
    expect(done.choices[0]?.message.content).toBe('Hello from the fixture.');
    const stream = await client.chat.completions.create({ model: 'obs-model', stream: true, messages: [{ role: 'user', content: 'hi' }] });
    for await (const _ of stream);
    await t.deps.meter.flush();
    const after = await metrics();

    const requests = { method: 'POST', route: chat, status: '200' };
    expect(sample(after, 'svc_http_requests_total', requests) - sample(before, 'svc_http_requests_total', requests)).toBe(2);
    const count = { method: 'POST', route: chat };
    expect(
      sample(after, 'svc_http_request_duration_seconds_count', count) - sample(before, 'svc_http_request_duration_seconds_count', count),
    ).toBe(2);
    const up = { provider: 'obs-up', outcome: 'ok' };
    expect(sample(after, 'svc_upstream_response_seconds_count', up) - sample(before, 'svc_upstream_response_seconds_count', up)).toBe(2);
    const prompt = { model: 'obs-model', direction: 'prompt' };
    expect(sample(after, 'svc_tokens_total', prompt)).toBeGreaterThan(sample(before, 'svc_tokens_total', prompt));
    const completion = { model: 'obs-model', direction: 'completion' };
    expect(sample(after, 'svc_tokens_total', completion) - sample(before, 'svc_tokens_total', completion)).toBe(10);
    expect(sample(after, 'svc_charged_micros_total', { currency: 'USD' })).toBeGreaterThan(
      sample(before, 'svc_charged_micros_total', { currency: 'USD' }),
    );
    for (const name of [
      'svc_open_streams',
      'svc_ledger_backlog',
      'svc_request_log_backlog',
      'svc_rate_limit_refusals_total',
      'svc_abuse_blocks_total',
    ])
      expect(after).toContain(`# TYPE ${name} `);
    expect(sample(after, 'svc_open_streams')).toBe(0);
  });

  test('upstream failures are counted by provider and reason', async () => {
    const before = await metrics();
    upstream.set({ status: 503 });
    const res = await t.request('/chat/completions', {
      method: 'POST',
      json: { model: 'obs-model', messages: [{ role: 'user', content: 'hi' }] },
    });
    upstream.set({});
    expect(res.status).toBeGreaterThanOrEqual(500);
    const after = await metrics();
    const failed = { provider: 'obs-up', reason: 'http_503' };
    expect(sample(after, 'svc_upstream_errors_total', failed)).toBeGreaterThan(sample(before, 'svc_upstream_errors_total', failed));
  });

  test('an upstream timeout is counted as reason="timeout", not as an abort', async () => {
    const before = await metrics();
    upstream.set({ hang: true });
    const res = await t.request('/chat/completions', {
      method: 'POST',
      json: { model: 'obs-model', messages: [{ role: 'user', content: 'hi' }] },
    });
    upstream.set({});
    expect(res.status).toBe(504);
    const after = await metrics();
    const timedOut = { provider: 'obs-up', reason: 'timeout' };
    expect(sample(after, 'svc_upstream_errors_total', timedOut)).toBe(sample(before, 'svc_upstream_errors_total', timedOut) + 1);
    const aborted = { provider: 'obs-up', reason: 'aborted' };
    expect(sample(after, 'svc_upstream_errors_total', aborted)).toBe(sample(before, 'svc_upstream_errors_total', aborted));
  });

  test('one access-log line per request, with route, status, duration, account, model and tokens; a stream is logged at its end', async () => {
    const json = await t.request('/chat/completions', {
      method: 'POST',
      json: { model: 'obs-model', messages: [{ role: 'user', content: 'hi' }] },
    });
    await json.text();
    await afterResponses();
    const id = json.headers.get('cf-ray')!;
    const [line] = accessLines(id);
    expect(accessLines(id)).toHaveLength(1);
    expect(line).toMatchObject({ level: 'info', method: 'POST', route: chat, status: 200, model: 'obs-model', completionTokens: 5 });
    expect(line!.accountId).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof line!.ms).toBe('number');

    const streamed = await t.request('/chat/completions', {
      method: 'POST',
      json: { model: 'obs-model', stream: true, messages: [{ role: 'user', content: 'hi' }] },
    });
    const sid = streamed.headers.get('cf-ray')!;
    await streamed.text();
    await Bun.sleep(20);
    expect(accessLines(sid)).toEqual([
      expect.objectContaining({ status: 200, stream: 'complete', completionTokens: 5, model: 'obs-model' }),
    ]);

    const denied = await t.request('/api_keys', { key: 'svc_wrong' });
    await afterResponses();
    expect(accessLines(denied.headers.get('cf-ray')!)).toEqual([
      expect.objectContaining({ status: 401, route: '/api/v1/api_keys', accountId: null }),
    ]);
    // No secret reaches the log.
    expect(JSON.stringify(lines)).not.toContain(t.adminKey);
  });

  test('x-request-id equals CF-RAY on every response: success, 4xx and unmatched routes', async () => {
    const responses = [
      await t.request('/models', { key: null }),
      await t.request('/api_keys', { key: null }),
      await t.request('/chat/completions', { method: 'POST', json: { model: 'obs-model' } }),
      await t.app.handle(new Request('http://localhost/nowhere')),
      await t.app.handle(new Request('http://localhost/health')),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 401, 400, 404, 200]);
    for (const res of responses) {
      expect(res.headers.get('cf-ray')).toMatch(/-SVC$/);
      expect(res.headers.get('x-request-id')).toBe(res.headers.get('cf-ray'));
    }
  });

  test('the OpenAI SDK reports the request id of an error', async () => {
    const client = new OpenAI({
      apiKey: 'svc_wrong',
      baseURL: 'http://svc.test/api/v1',
      fetch: (url, init) => t.app.handle(new Request(url, init)),
    });
    const failed = await client.chat.completions
      .create({ model: 'obs-model', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(OpenAI.APIError);
    expect((failed as InstanceType<typeof OpenAI.APIError>).requestID).toMatch(/-SVC$/);
  });
});

describe('health and readiness', () => {
  test('/health answers and /ready checks the database and the KV store', async () => {
    const t = await startTestApp();
    try {
      const health = await t.app.handle(new Request('http://localhost/health'));
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok' });
      const ready = await t.app.handle(new Request('http://localhost/ready'));
      expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', kv: 'ok' } });
      await t.deps.storage.close();
      const down = await t.app.handle(new Request('http://localhost/ready'));
      expect(down.status).toBe(503);
      expect(await down.json()).toMatchObject({ error: 'Not ready: database unavailable', checks: { database: 'unavailable', kv: 'ok' } });
    } finally {
      await t.close().catch(() => {});
    }
  });
});

describe('/metrics access', () => {
  test('with metricsToken set, a scraper needs the bearer token', async () => {
    const t = await startTestApp({ config: { metricsToken: 'a-scrape-token-of-16+' } });
    try {
      const get = (auth?: string) =>
        t.app.handle(new Request('http://localhost/metrics', { headers: auth ? { authorization: auth } : {} }));
      const anonymous = await get();
      expect(anonymous.status).toBe(401);
      expect((await anonymous.json()).error).toContain('metricsToken');
      expect((await get('Bearer wrong')).status).toBe(401);
      const ok = await get('Bearer a-scrape-token-of-16+');
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    } finally {
      await t.close();
    }
  });

  test('metrics: false removes the route', async () => {
    const t = await startTestApp({ config: { metrics: false } });
    try {
      expect((await t.app.handle(new Request('http://localhost/metrics'))).status).toBe(404);
    } finally {
      await t.close();
    }
  });
});
