import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import type { ChatChunk } from '@svc/plugin-sdk';
import { contentOf, fixtureModel, fixtureProvider, recordingMeter, sseData } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import { answerer, failing, guard, observed, observedCount, observer } from './hook-plugins';

let t: TestApp;
let upstream: FixtureUpstream;
const meter = recordingMeter();

beforeAll(async () => {
  upstream = startUpstream('up');
  t = await startTestApp({
    meter: meter.meter,
    config: { providers: [fixtureProvider('up', upstream.url)], models: [fixtureModel('fix', ['up'])] },
    extras: {
      chat: {
        pingIntervalMs: 1000,
        plugins: [guard, answerer, { plugin: failing, options: {}, timeoutMs: 100 }, observer],
      },
    },
  });
});
afterAll(async () => {
  await t.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.set({});
  upstream.requests.length = 0;
  meter.calls.settled.length = 0;
  meter.calls.released = 0;
  observed.length = 0;
});

const chat = (json: Record<string, unknown>) =>
  t.request('/chat/completions', { method: 'POST', json: { model: 'fix', messages: [{ role: 'user', content: 'Hi' }], ...json } });
const metricsText = async () => (await t.app.handle(new Request('http://localhost/metrics'))).text();
const responses = (json: Record<string, unknown>) =>
  t.request('/responses', { method: 'POST', json: { model: 'fix', input: 'Hi', ...json } });

describe('respond: a plugin answers instead of the upstream', () => {
  test('chat JSON: no upstream call, its answer and header, one settlement at its price with its SKU only', async () => {
    const res = await chat({ svc_parameters: { h_answer: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-test-answer')).toBe('plugin');
    expect(res.headers.get('x-svc-model-id')).toBe('fix');
    const body = await res.json();
    expect(body.choices[0].message.content).toBe('An answer from the plugin itself.');
    expect(body.model).toBe('fix');
    expect(body.usage).toEqual({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
    expect(upstream.requests).toHaveLength(0);
    expect(meter.calls.settled).toHaveLength(1);
    expect(meter.calls.settled[0]).toMatchObject({ promptTokens: 0, completionTokens: 0, extrasOnly: true });
    expect(meter.calls.settled[0]!.extras).toEqual([{ sku: 'answerer-hit', units: 1, unitPriceMicros: 500 }]);
  });

  test('chat stream (model suffix): replayed as chunks with usage and [DONE]; no upstream call', async () => {
    const res = await chat({ model: 'fix:h_answer=true', stream: true, stream_options: { include_usage: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-test-answer')).toBe('plugin');
    const events = await sseData(res);
    expect(contentOf(events)).toBe('An answer from the plugin itself.');
    expect(events.filter((e) => typeof e === 'object' && (e as ChatChunk).choices.length > 0).length).toBeGreaterThan(2);
    const usage = events.at(-2) as ChatChunk & { cost: unknown };
    expect(usage.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 3 });
    expect(usage.cost).toEqual({ usd: 0.001234, diem: 0 });
    expect(events.at(-1)).toBe('[DONE]');
    expect(upstream.requests).toHaveLength(0);
    expect(meter.calls.settled).toHaveLength(1);
    expect(meter.calls.settled[0]!.extras).toEqual([{ sku: 'answerer-hit', units: 1, unitPriceMicros: 500 }]);
  });

  test('/responses JSON and stream', async () => {
    const json = await (await responses({ svc_parameters: { h_answer: true } })).json();
    expect(json.output.at(-1).content[0].text).toBe('An answer from the plugin itself.');
    const res = await responses({ svc_parameters: { h_answer: true }, stream: true });
    const text = await res.text();
    expect(text).toContain('response.completed');
    expect(text).toContain('An answer from');
    expect(upstream.requests).toHaveLength(0);
    expect(meter.calls.settled).toHaveLength(2);
  });
});

describe('refusals', () => {
  test('before the call (transformRequest): 400 naming the plugin and the reason; released, upstream not called', async () => {
    const res = await chat({ svc_parameters: { h_refuse: 'request' } });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'guard: the prompt names a forbidden topic' });
    expect(upstream.requests).toHaveLength(0);
    expect(meter.calls.settled).toHaveLength(0);
    expect(meter.calls.released).toBe(1);
  });

  test('from respond: its status and code; stream requests too get a JSON error', async () => {
    const res = await chat({ svc_parameters: { h_refuse: 'respond' }, stream: true });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: 'guard: not for this key', code: 'guard_denied' });
    expect(upstream.requests).toHaveLength(0);
  });

  test('after the call (transformResponse): 422, the answer withheld, the charge said', async () => {
    const res = await chat({ svc_parameters: { h_refuse: 'response' } });
    expect(res.status).toBe(422);
    expect((await res.json()).error).toBe(
      "guard: the answer leaks a secret (the upstream's answer was withheld; it was charged: $0.001234)",
    );
    expect(upstream.requests).toHaveLength(1);
    expect(meter.calls.settled).toHaveLength(1);
  });

  test('mid-stream: a content_filter finish, the usage chunk, the in-band error naming the plugin, [DONE]', async () => {
    upstream.set({ tokens: ['one ', 'two ', 'three ', 'four'] });
    const res = await chat({ svc_parameters: { h_refuse: 'stream' }, stream: true, stream_options: { include_usage: true } });
    expect(res.status).toBe(200);
    const events = await sseData(res);
    expect(contentOf(events)).toBe('one ');
    const finish = events.find((e) => (e as ChatChunk).choices?.[0]?.finish_reason);
    expect((finish as ChatChunk).choices[0]!.finish_reason).toBe('content_filter');
    const error = events.at(-2) as { error: { message: string } };
    expect(error.error.message).toBe('guard: the answer turned unsafe');
    expect((events.at(-3) as ChatChunk & { cost: unknown }).cost).toEqual({ usd: 0.001234, diem: 0 });
    expect(events.at(-1)).toBe('[DONE]');
    expect(meter.calls.settled).toHaveLength(1);
  });

  test('/responses: a refusal before the call is the same JSON error', async () => {
    const res = await responses({ svc_parameters: { h_refuse: 'request' } });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('guard: the prompt names a forbidden topic');
  });
});

describe('isolation', () => {
  test('a throw is a 500 naming the plugin; nothing charged; the next request is served', async () => {
    const res = await chat({ svc_parameters: { h_fail: 'throw' } });
    expect(res.status).toBe(500);
    expect((await res.json()).error).toBe('plugin failing failed: boom');
    expect(meter.calls.settled).toHaveLength(0);
    expect(meter.calls.released).toBe(1);
    expect((await chat({})).status).toBe(200);
  });

  test('a hook over its time budget is a 500 naming the plugin and the budget', async () => {
    const res = await chat({ svc_parameters: { h_fail: 'slow' }, stream: true });
    expect(res.status).toBe(500);
    expect((await res.json()).error).toBe('plugin failing failed: it did not answer within 100 ms');
    expect(upstream.requests).toHaveLength(0);
  });
});

describe('onSettled', () => {
  test('JSON: the upstream answer before transforms, cost, status, timings; a throwing observer changes nothing', async () => {
    const res = await chat({ svc_parameters: { h_observe: true } });
    expect(res.status).toBe(200);
    const [o] = await observedCount(1);
    expect(o).toMatchObject({
      answeredBy: 'upstream',
      complete: true,
      status: 200,
      route: '/chat/completions',
      model: 'fix',
      stream: false,
      cost: { usdMicros: 1234, diemMicros: 0 },
      refusal: null,
      error: null,
    });
    expect(o!.completion?.choices[0]?.message.content).toBe('Hello from the fixture.');
    expect(o!.request.messages.at(-1)).toEqual({ role: 'user', content: 'Hi' });
    expect(o!.timings.totalMs).toBeGreaterThan(0);
    expect(o!.accountId).toBeString();
  });

  test('stream: the chunks assembled; a plugin answer names its plugin; /responses route', async () => {
    upstream.set({ tokens: ['Ot', 'ters'] });
    await (await chat({ svc_parameters: { h_observe: true }, stream: true })).text();
    await (await responses({ svc_parameters: { h_observe: true, h_answer: true }, stream: true })).text();
    const [a, b] = await observedCount(2);
    expect(a!.completion?.choices[0]?.message.content).toBe('Otters');
    expect(a!.usage?.completion_tokens).toBeGreaterThan(0);
    expect(a).toMatchObject({ stream: true, complete: true, answeredBy: 'upstream' });
    expect(b).toMatchObject({ answeredBy: 'answerer', route: '/responses', complete: true });
    expect(b!.completion?.choices[0]?.message.content).toBe('An answer from the plugin itself.');
  });

  test('a refusal: the outcome says which plugin and why', async () => {
    await chat({ svc_parameters: { h_observe: true, h_refuse: 'request' } });
    await (await chat({ svc_parameters: { h_observe: true, h_refuse: 'stream' }, stream: true })).text();
    const [a, b] = await observedCount(2);
    expect(a).toMatchObject({ status: 400, complete: false, refusal: { plugin: 'guard', reason: 'the prompt names a forbidden topic' } });
    expect(b).toMatchObject({ status: 200, complete: false, refusal: { plugin: 'guard', reason: 'the answer turned unsafe' } });
  });

  test('an onSettled that throws is logged and counted, never seen by the client', async () => {
    const res = await chat({ svc_parameters: { h_fail: 'settled', h_observe: true } });
    expect(res.status).toBe(200);
    await observedCount(1);
    await Bun.sleep(20);
    const metrics = await metricsText();
    expect(metrics).toMatch(/svc_plugin_errors_total\{plugin="failing"\} [1-9]/);
  });
});

test('/metrics: calls, time and refusals per plugin and hook, and a plugin counter of its own', async () => {
  await chat({ svc_parameters: { h_answer: true, h_observe: true } });
  await chat({ svc_parameters: { h_refuse: 'request' } });
  await observedCount(1);
  const metrics = await metricsText();
  expect(metrics).toMatch(/svc_plugin_calls_total\{plugin="answerer",hook="respond"\} [1-9]/);
  expect(metrics).toMatch(/svc_plugin_duration_seconds_count\{plugin="answerer",hook="respond"\} [1-9]/);
  expect(metrics).toMatch(/svc_plugin_refusals_total\{plugin="guard"\} [1-9]/);
  expect(metrics).toMatch(/svc_plugin_observer_outcomes_total\{complete="true"\} [1-9]/);
  expect(metrics).toMatch(/svc_plugin_observer_total_seconds_count [1-9]/);
});
