import { afterAll, beforeAll, expect, test } from 'bun:test';
import { contentOf, sseData } from '../chat/helpers';
import { startTestApp, type TestApp } from '../helpers/app';

// The out-of-the-box catalog (simulator), as `npm start` serves it without config.
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const chat = (model: string, stream = false) =>
  t.request('/chat/completions', { method: 'POST', json: { model, stream, messages: [{ role: 'user', content: 'Hi' }] } });

test('simulated reasoning model thinks in <think> tags unless asked not to', async () => {
  const raw = (await (await chat('qwen3-4b')).json()).choices[0].message.content as string;
  expect(raw).toContain('<think>');
  const disabled = (await (await chat('qwen3-4b:disable_thinking=true')).json()).choices[0].message.content as string;
  expect(disabled).not.toContain('<think>');
  expect(disabled.length).toBeGreaterThan(0);
});

test('strip_thinking_response removes the simulator think block, JSON and stream', async () => {
  const json = (await (await chat('qwen3-235b-a22b-thinking-2507:strip_thinking_response=true')).json()).choices[0].message
    .content as string;
  expect(json).not.toContain('think>');
  expect(json.length).toBeGreaterThan(0);
  const streamed = contentOf(await sseData(await chat('qwen3-235b-a22b-thinking-2507:strip_thinking_response=true', true)));
  expect(streamed).not.toContain('think>');
  expect(streamed.length).toBeGreaterThan(0);
});
