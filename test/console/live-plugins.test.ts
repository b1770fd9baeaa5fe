import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { definePlugin, refuse, Type } from '@svc/plugin-sdk';
import type { LivePlugin } from '../../src/console/live-plugins';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import { EMBEDDED } from '../helpers/backends';
import { PLUGIN_COMPLETION } from '../plugins-e2e/hook-plugins';

// Plugin names of this file's own: the metrics registry is the process's, shared by every test file.
const answers = definePlugin({
  name: 'live_answers',
  parameters: { l_answer: Type.Optional(Type.Boolean({ default: false })) },
  isActive: (ctx) => ctx.params.l_answer === true,
  respond: () => ({ completion: PLUGIN_COMPLETION, charges: [] }),
});
const guards = definePlugin({
  name: 'live_guards',
  parameters: { l_mode: Type.Optional(Type.Union([Type.Literal('refuse'), Type.Literal('throw')])) },
  isActive: (ctx) => ctx.params.l_mode !== undefined,
  transformRequest(_req, ctx) {
    if (ctx.params.l_mode === 'refuse') throw refuse('not today');
    throw new Error('boom');
  },
  onSettled() {},
});

let t: TestApp;
let upstream: FixtureUpstream;

beforeAll(async () => {
  upstream = startUpstream('up');
  t = await startTestApp({
    backend: EMBEDDED, // the figures are this process's metrics; storage plays no part
    config: {
      providers: [fixtureProvider('up', upstream.url)],
      models: [fixtureModel('fix', ['up'])],
      plugins: [{ name: 'cache', enabled: false }],
    },
    extras: { chat: { plugins: [answers, guards] } },
  });
});
afterAll(async () => {
  await t.close();
  await upstream.close();
});

const chat = (params: Record<string, unknown>) =>
  t.request('/chat/completions', {
    method: 'POST',
    json: { model: 'fix', messages: [{ role: 'user', content: 'Hi' }], svc_parameters: params },
  });
// The console's JSON lives outside the API's base path.
const live = (key: string) =>
  t.app.handle(new Request('http://localhost/console/api/live', { headers: { authorization: `Bearer ${key}` } }));
const plugins = async () => {
  const res = await live(t.adminKey);
  expect(res.status).toBe(200);
  const rows = ((await res.json()) as { data: { plugins: LivePlugin[] } }).data.plugins;
  return Object.fromEntries(rows.map((p) => [p.name, p]));
};

describe('GET /console/api/live: the plugins', () => {
  test('an INFERENCE key is refused', async () => {
    const made = await t.request('/api_keys', { method: 'POST', json: { apiKeyType: 'INFERENCE', description: 'inference' } });
    const key = ((await made.json()) as { data: { apiKey: string } }).data.apiKey;
    const res = await live(key);
    expect(res.status).toBe(403);
  });

  test('each loaded plugin with its hooks, and the config entries turned off', async () => {
    const rows = await plugins();
    expect(Object.keys(rows)).toEqual(['live_answers', 'live_guards', 'cache']);
    expect(rows.live_answers).toEqual({
      name: 'live_answers',
      enabled: true,
      hooks: ['respond'],
      calls: 0,
      callsByHook: {},
      refusals: 0,
      errors: 0,
      meanMs: null,
      p95Ms: null,
    });
    expect(rows.live_guards).toMatchObject({ enabled: true, hooks: ['transformRequest', 'onSettled'] });
    expect(rows.cache).toMatchObject({ enabled: false, hooks: [] });
  });

  test('calls, refusals, errors and hook time move with requests through the plugins', async () => {
    expect((await chat({ l_answer: true })).status).toBe(200);
    expect((await chat({ l_answer: true })).status).toBe(200);
    expect((await chat({ l_mode: 'refuse' })).status).toBe(400);
    expect((await chat({ l_mode: 'throw' })).status).toBeGreaterThanOrEqual(500);
    const rows = await plugins();
    expect(rows.live_answers).toMatchObject({ calls: 2, callsByHook: { respond: 2 }, refusals: 0, errors: 0 });
    expect(rows.live_answers!.meanMs).toBeGreaterThan(0);
    expect(rows.live_answers!.p95Ms).toBeGreaterThan(0);
    expect(rows.live_guards).toMatchObject({ refusals: 1, errors: 1 });
    expect(rows.live_guards!.callsByHook.transformRequest).toBe(2);
  });
});
