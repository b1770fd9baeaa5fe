import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestApp, type TestApp } from '../helpers/app';
import { letterRun } from '../helpers/hostile-input';

/**
 * The probe, end to end: a chat message of 1 MB of letters with no space. svc counts
 * the prompt for the reservation and the in-process simulator counts it again for its usage;
 * with the quadratic count this took hours (100,000 letters took 7.3 s). CPU time, not wall
 * time: the machine these tests run on is shared.
 */
describe('long runs of letters on chat', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  test('a chat message of 1 MB of letters with no space answers 200 in under 2 s of CPU, its prompt counted', async () => {
    const content = letterRun(1 << 20);
    const cpu = process.cpuUsage();
    const res = await t.request('/chat/completions', {
      method: 'POST',
      json: { model: 'qwen3-4b', messages: [{ role: 'user', content }] },
    });
    const body = (await res.json()) as { usage: { prompt_tokens: number } };
    const used = process.cpuUsage(cpu);
    expect(res.status).toBe(200);
    // Random letters merge into tokens of about two letters.
    expect(body.usage.prompt_tokens).toBeGreaterThan(400_000);
    expect((used.user + used.system) / 1000).toBeLessThan(2_000);
  }, 30_000); // 1 MB through the app twice on a loaded machine
});
