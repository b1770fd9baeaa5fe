import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { t as tb } from 'elysia';
import { notFound, tooManyRequests } from '../../src/http/errors';
import type { RequestPlugin } from '../../src/pipeline/plugin';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import { fixtureModel, fixtureProvider, recordingMeter } from './helpers';

const throwing: RequestPlugin = {
  name: 'test_throw',
  parameters: { test_throw: tb.Optional(tb.Boolean({ default: false })) },
  isActive: (ctx) => ctx.params.test_throw === true,
  transformRequest() {
    throw notFound('Character not found');
  },
};

let up: FixtureUpstream;
let t: TestApp;
const m = recordingMeter();
let refuse = false;

beforeAll(async () => {
  up = startUpstream('edges');
  const meter = {
    ...m.meter,
    open: async (input: Parameters<typeof m.meter.open>[0]) => {
      if (refuse) throw tooManyRequests('Rate limit exceeded', { 'x-ratelimit-remaining-requests': '0' });
      return m.meter.open(input);
    },
  };
  t = await startTestApp({
    meter,
    extras: { chat: { plugins: [throwing] } },
    config: { providers: [fixtureProvider('up', up.url)], models: [fixtureModel('fix', ['up'])] },
  });
}, 20_000);
afterAll(async () => {
  await t.close();
  await up.close();
});

const chat = (json: Record<string, unknown> = {}) =>
  t.request('/chat/completions', { method: 'POST', json: { model: 'fix', messages: [{ role: 'user', content: 'Hi' }], ...json } });

describe('metering edges', () => {
  test('a meter refusal (429) stops the request before any upstream call', async () => {
    refuse = true;
    const res = await chat({ stream: true });
    refuse = false;
    expect(res.status).toBe(429);
    expect(res.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(up.requests).toHaveLength(0);
  });

  test('a plugin error is returned as is and the reservation is released', async () => {
    const res = await chat({ svc_parameters: { test_throw: true } });
    expect(res.status).toBe(404);
    expect((await res.json()).error).toBe('Character not found');
    expect(m.calls.released).toBe(1);
    expect(m.calls.settled).toHaveLength(0);
    expect(up.requests).toHaveLength(0);
  });
});
