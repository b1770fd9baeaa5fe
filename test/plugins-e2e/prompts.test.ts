import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { contentOf, sseData } from '../chat/helpers';
import { DEFAULT_PROMPT, startPluginWorld, type PluginWorld } from './setup';

let w: PluginWorld;
beforeAll(async () => {
  w = await startPluginWorld();
});
afterAll(() => w.close());
beforeEach(() => w.reset());

const withSystem = (content = 'Caller rules') => [
  { role: 'system', content },
  { role: 'user', content: 'Hi' },
];
const systemSent = () =>
  w
    .lastUpstream()
    .messages.filter((m) => m.role === 'system')
    .map((m) => m.content);

describe('include_svc_system_prompt through POST /chat/completions', () => {
  test("an operator's model gets no service prompt unless asked; the echo says false", async () => {
    const res = await w.chat({ messages: withSystem() });
    expect(res.status).toBe(200);
    expect(systemSent()).toEqual(['Caller rules']);
    expect((await res.json()).svc_parameters.include_svc_system_prompt).toBe(false);
  });

  test('the request asks (body or suffix): the service prompt first, the caller prompt after it, one system message', async () => {
    const res = await w.chat({ messages: withSystem(), svc_parameters: { include_svc_system_prompt: true } });
    expect(systemSent()).toEqual([`${DEFAULT_PROMPT}\n\nCaller rules`]);
    expect((await res.json()).svc_parameters.include_svc_system_prompt).toBe(true);
    await w.chat({ model: 'fix-plain:include_svc_system_prompt=true' });
    expect(systemSent()).toEqual([DEFAULT_PROMPT]);
  });

  test('a model whose entry sets includeSvcSystemPrompt gets it by default; false removes it (body and suffix)', async () => {
    const on = await w.chat({ model: 'fix-prompted', messages: withSystem() });
    expect(systemSent()).toEqual([`${DEFAULT_PROMPT}\n\nCaller rules`]);
    expect((await on.json()).svc_parameters.include_svc_system_prompt).toBe(true);
    const off = await w.chat({ model: 'fix-prompted', messages: withSystem(), svc_parameters: { include_svc_system_prompt: false } });
    expect((await off.json()).svc_parameters.include_svc_system_prompt).toBe(false);
    expect(systemSent()).toEqual(['Caller rules']);
    await w.chat({ model: 'fix-prompted:include_svc_system_prompt=false' });
    expect(systemSent()).toEqual([]);
  });

  test('a wrong type is a 400 naming the field; unknown svc_parameters keys are ignored', async () => {
    const bad = await w.chat({ svc_parameters: { include_svc_system_prompt: 'nope' } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).details.svc_parameters.include_svc_system_prompt._errors.length).toBeGreaterThan(0);
    const ok = await w.chat({ svc_parameters: { no_such_option: true } });
    expect(ok.status).toBe(200);
    expect((await ok.json()).svc_parameters).not.toHaveProperty('no_such_option');
  });
});

describe('character_slug through POST /chat/completions', () => {
  test("default prompt, then the character's prompt, then the caller's", async () => {
    const res = await w.chat({ model: 'fix-prompted', messages: withSystem(), svc_parameters: { character_slug: 'alan-watts' } });
    expect(res.status).toBe(200);
    const [system] = systemSent() as string[];
    expect(system!.startsWith(`${DEFAULT_PROMPT}\n\nYou are Alan Watts`)).toBe(true);
    expect(system!.endsWith('\n\nCaller rules')).toBe(true);
    expect((await res.json()).svc_parameters.character_slug).toBe('alan-watts');
  });

  test('as a model suffix', async () => {
    await w.chat({ model: 'fix-prompted:character_slug=code-reviewer&include_svc_system_prompt=false' });
    expect((systemSent()[0] as string).startsWith('You are a meticulous senior software engineer')).toBe(true);
  });

  test('an unknown slug is a 404 StandardError; the upstream is not called and nothing is charged', async () => {
    const res = await w.chat({ svc_parameters: { character_slug: 'nobody-here' } });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'Character not found' });
    expect(w.upstream.requests).toHaveLength(0);
    expect(w.meter.calls.released).toBe(1);
    expect(w.meter.calls.settled).toHaveLength(0);
  });
});

const THINK_TOKENS = ['<thi', 'nk>I should gr', 'eet 😀</th', 'ink>\n\nHel', 'lo 🌍', ' <', 'b>'];

describe('strip_thinking_response through POST /chat/completions', () => {
  test('JSON: think blocks removed; echoed', async () => {
    w.upstream.set({ tokens: THINK_TOKENS });
    const res = await w.chat({ svc_parameters: { strip_thinking_response: true } });
    const body = await res.json();
    expect(body.choices[0].message.content).toBe('Hello 🌍 <b>');
    expect(body.svc_parameters.strip_thinking_response).toBe(true);
  });

  test('stream with upstream bytes cut every 3 bytes (UTF-8 and tags split): think blocks removed', async () => {
    w.upstream.set({ tokens: THINK_TOKENS, splitBytes: 3 });
    const res = await w.chat({ stream: true, model: 'fix-plain:strip_thinking_response=true' });
    expect(res.status).toBe(200);
    const events = await sseData(res);
    expect(contentOf(events)).toBe('Hello 🌍 <b>');
    expect(events.at(-1)).toBe('[DONE]');
  });

  test('without the option the think block reaches the client unchanged', async () => {
    w.upstream.set({ tokens: THINK_TOKENS });
    const events = await sseData(await w.chat({ stream: true }));
    expect(contentOf(events)).toBe(THINK_TOKENS.join(''));
  });
});

describe('disable_thinking through POST /chat/completions', () => {
  test('supporting model: chat_template_kwargs.enable_thinking=false upstream and the answer is stripped', async () => {
    w.upstream.set({ tokens: THINK_TOKENS });
    const res = await w.chat({ model: 'fix-think', svc_parameters: { disable_thinking: true } });
    expect(w.lastUpstream().chat_template_kwargs).toEqual({ enable_thinking: false });
    const body = await res.json();
    expect(body.choices[0].message.content).toBe('Hello 🌍 <b>');
    expect(body.svc_parameters.disable_thinking).toBe(true);
  });

  test('as a suffix, streaming', async () => {
    w.upstream.set({ tokens: THINK_TOKENS, splitBytes: 5 });
    const events = await sseData(await w.chat({ model: 'fix-think:disable_thinking=true', stream: true }));
    expect(w.lastUpstream().chat_template_kwargs).toEqual({ enable_thinking: false });
    expect(contentOf(events)).toBe('Hello 🌍 <b>');
  });

  test('model without the capability: nothing is sent upstream, but think blocks are still stripped', async () => {
    w.upstream.set({ tokens: THINK_TOKENS });
    const body = await (await w.chat({ svc_parameters: { disable_thinking: true } })).json();
    expect(w.lastUpstream()).not.toHaveProperty('chat_template_kwargs');
    expect(body.choices[0].message.content).toBe('Hello 🌍 <b>');
  });
});
