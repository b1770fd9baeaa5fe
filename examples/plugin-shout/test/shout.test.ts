import { afterAll, beforeAll, expect, test } from 'bun:test';
import { testPlugin, type PluginTestRun } from '@svc/plugin-sdk/testing';
import shout from '../src/index';

let run: PluginTestRun;
beforeAll(async () => {
  const upstream = (req: { messages: { content: unknown }[] }) => `You said: ${JSON.stringify(req.messages.at(-1)?.content)}`;
  run = await testPlugin(shout, { options: { suffix: '!!', forbidden: ['secret'] }, upstream });
  // svc starts an embedded database: give it time on a slow machine.
}, 120_000);
afterAll(() => run.close());

test('JSON: the upstream gets the message upper-cased; the answer ends with the suffix', async () => {
  const { status, body } = await run.chat({ messages: [{ role: 'user', content: 'hello there' }], svc_parameters: { shout: true } });
  expect(status).toBe(200);
  expect(run.upstreamRequests.at(-1)?.messages.at(-1)?.content).toBe('HELLO THERE');
  expect(body.choices[0]?.message.content).toBe('You said: "HELLO THERE"!!');
});

test('stream, as a model suffix: the suffix comes before the end', async () => {
  const reply = await run.stream({ model: `${run.model}:shout=true`, messages: [{ role: 'user', content: 'hi' }] });
  expect(reply.text).toBe('You said: "HI"!!');
  expect(reply.error).toBeNull();
});

test('off by default: nothing changes', async () => {
  const { body } = await run.chat({ messages: [{ role: 'user', content: 'quiet' }] });
  expect(body.choices[0]?.message.content).toBe('You said: "quiet"');
});

test('a forbidden word is refused before the upstream, naming the plugin', async () => {
  const before = run.upstreamRequests.length;
  const { status, body } = await run.chat({ messages: [{ role: 'user', content: 'my SECRET plan' }], svc_parameters: { shout: true } });
  expect(status).toBe(400);
  expect(body.error).toBe('shout: "secret" may not be shouted');
  expect(run.upstreamRequests.length).toBe(before);
});

test('/responses', async () => {
  const { status, body } = await run.responses({ input: 'yo', svc_parameters: { shout: true } });
  expect(status).toBe(200);
  expect(JSON.stringify(body.output)).toContain('You said: \\"YO\\"!!');
});
