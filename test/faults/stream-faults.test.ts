import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import { fixtureModel, fixtureProvider, recordingMeter, sseData, upperPlugin } from '../chat/helpers';

// Streams that must never hang: an upstream silent after its first byte is given up after the
// idle timeout (300 ms here), and a broken stream is charged for every content chunk forwarded.
let up: FixtureUpstream;
let t: TestApp;
const m = recordingMeter();

beforeAll(async () => {
  up = startUpstream('s');
  t = await startTestApp({
    meter: m.meter,
    extras: { chat: { plugins: [upperPlugin], pingIntervalMs: 25, idleTimeoutMs: 300 } },
    config: { providers: [fixtureProvider('up', up.url, 2_000)], models: [fixtureModel('fix', ['up'])] },
  });
});
afterAll(async () => {
  await t.close();
  await up.close();
});
beforeEach(() => {
  up.set({});
  m.calls.settled.length = 0;
  m.calls.released = 0;
});

const stream = (json: Record<string, unknown> = {}) =>
  t.request('/chat/completions', {
    method: 'POST',
    json: { model: 'fix', messages: [{ role: 'user', content: 'Hi' }], stream: true, stream_options: { include_usage: true }, ...json },
  });
// Both proxy paths: zero-copy (no plugin) and decoded (a plugin with a stream transform).
const PATHS = [
  ['zero-copy', {}],
  ['transformed', { svc_parameters: { test_upper: true } }],
] as const;

describe('upstream idle timeout', () => {
  for (const [path, json] of PATHS)
    test(`${path}: an upstream silent after two content chunks ends with an in-band error and [DONE], charged for the two`, async () => {
      // Events: role chunk, "Hello", " from", then 10 s of silence.
      up.set({ silenceMs: 10_000, silenceAt: 3 });
      const aborted = up.nextAbort();
      const started = performance.now();
      const res = await stream(json);
      expect(res.status).toBe(200);
      const events = await sseData(res);
      expect(performance.now() - started).toBeLessThan(3_000);
      expect(events.at(-1)).toBe('[DONE]');
      const error = events.at(-2) as { error: { message: string; code: string } };
      expect(error.error.message).toContain('sent nothing for');
      await aborted; // the upstream call was given up, not left open
      expect(m.calls.settled).toHaveLength(1);
      expect(m.calls.settled[0]!.completionTokens).toBe(2);
      expect(m.calls.released).toBe(0);
    });

  test('a stream silent for less than the idle timeout, pinged meanwhile, completes normally', async () => {
    up.set({ silenceMs: 150 });
    const res = await stream();
    const text = await res.text();
    expect(text).toContain(': ping\n\n');
    expect(text).not.toContain('sent nothing');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });
});

describe('broken streams', () => {
  // The fixture breaks the connection after `failAfterChunks` events; the client gets what
  // reached svc. Whatever that is, the charge is one completion token per content chunk the
  // client received: not the role-only opening chunk, and not one fewer when there is none.
  for (const [path, json] of PATHS)
    for (const roleWithContent of [false, true])
      test(`${path}${roleWithContent ? ', no role-only chunk' : ''}: a broken stream is charged for every content chunk forwarded`, async () => {
        up.set({ failAfterChunks: 4, chunkDelayMs: 5, roleWithContent });
        const events = await sseData(await stream(json));
        // The plugin's leading chunk ("LEAD ") is svc's, not the model's.
        const content = events.filter(
          (e) =>
            (e as { id?: string }).id !== 'lead' && (e as { choices?: { delta?: { content?: string } }[] }).choices?.[0]?.delta?.content,
        );
        expect(content.length).toBeGreaterThanOrEqual(3);
        expect(events.at(-1)).toBe('[DONE]');
        expect((events.at(-2) as { error?: unknown }).error).toBeDefined();
        expect(m.calls.settled).toHaveLength(1);
        expect(m.calls.settled[0]!.completionTokens).toBe(content.length);
      });
});
