import { describe, expect, test } from 'bun:test';
import { contentChunk, joined, runTransform, testContext } from '../../test/plugins-e2e/context';
import type { ChatCompletion } from '../../src/stream/wire';
import { stripThink, stripThinkingResponse as plugin, stripThinkStream, ThinkStripper } from './index';

/** Feeds pieces one by one through the stream transform and returns the visible text. */
async function streamed(pieces: string[]): Promise<string> {
  return joined(await runTransform(stripThinkStream(), [...pieces.map((p) => contentChunk(p)), contentChunk(null, {}, 'stop')]));
}

/** Every way of cutting `text` into three pieces (two cut points). */
function* threeWaySplits(text: string): Generator<string[]> {
  for (let i = 0; i <= text.length; i++) for (let j = i; j <= text.length; j++) yield [text.slice(0, i), text.slice(i, j), text.slice(j)];
}

const completion = (content: string, extra: Record<string, unknown> = {}): ChatCompletion => ({
  id: 'x',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content, ...extra }, finish_reason: 'stop', logprobs: null }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});

describe('stripThink (whole text)', () => {
  test.each([
    ['<think>plan</think>\n\nAnswer', 'Answer'],
    ['Before <think>a</think> after', 'Before after'],
    ['A<think>1</think>B<think>2</think>C', 'ABC'],
    ['no tags at all', 'no tags at all'],
    ['a < b and <thing> stays', 'a < b and <thing> stays'],
    ['Answer <think>never closed', 'Answer '],
    ['ends with <th', 'ends with <th'],
    ['héllo 🌍<think>ünï 😀</think> wörld 🎉', 'héllo 🌍wörld 🎉'],
  ])('%j -> %j', (input, expected) => {
    expect(stripThink(input)).toBe(expected);
  });
});

describe('strip_thinking_response stream transform', () => {
  const text = 'Hi 🌍 <think>sécret 😀 plan</think>\nAnswer é < b';
  const expected = 'Hi 🌍 Answer é < b';

  test('every split of the text into three chunks gives the same answer', async () => {
    let cases = 0;
    for (const pieces of threeWaySplits(text)) {
      expect(await streamed(pieces)).toBe(expected);
      cases++;
    }
    expect(cases).toBeGreaterThan(1000);
  });

  test('one character per chunk (the tag split across seven and eight chunks)', async () => {
    expect(await streamed([...text])).toBe(expected);
  });

  test.each([
    [['<', 'think>x</think>ok'], 'ok'],
    [['<th', 'ink>x</th', 'ink>ok'], 'ok'],
    [['a</thi', 'nk>b'], 'a</think>b'],
    [['<think>x</thi', 'nk>', 'ok'], 'ok'],
    [['<thi', 'nk', '>x</think>ok'], 'ok'],
    [['x <', ' y'], 'x < y'],
  ])('worst-case boundaries %j', async (pieces, expected) => {
    expect(await streamed(pieces)).toBe(expected);
  });

  test('a partial tag held at the end of the stream is released as text', async () => {
    const out = await runTransform(stripThinkStream(), [contentChunk('tail <th')]);
    expect(joined(out)).toBe('tail <th');
  });

  test('a trailing partial tag is released into the finish chunk', async () => {
    const out = await runTransform(stripThinkStream(), [contentChunk('x <thi'), contentChunk(null, {}, 'stop')]);
    expect(out.map((c) => c.choices[0]?.delta.content)).toEqual(['x ', '<thi']);
    expect(out[1]!.choices[0]!.finish_reason).toBe('stop');
  });

  test('chunks that carry only thinking are dropped; role, finish and usage chunks are kept', async () => {
    const usageChunk = { ...contentChunk(null), choices: [], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } };
    const out = await runTransform(stripThinkStream(), [
      contentChunk('', { role: 'assistant' }),
      contentChunk('<think>'),
      contentChunk('deep thought'),
      contentChunk('</think>'),
      contentChunk('Yes'),
      contentChunk(null, {}, 'stop'),
      usageChunk,
    ]);
    expect(out).toHaveLength(4);
    expect(out[0]!.choices[0]!.delta.role).toBe('assistant');
    expect(out[1]!.choices[0]!.delta.content).toBe('Yes');
    expect(out[2]!.choices[0]!.finish_reason).toBe('stop');
    expect(out[3]!.usage?.total_tokens).toBe(3);
  });

  test('choices are stripped independently (n > 1)', async () => {
    const two = (a: string, b: string) => ({
      ...contentChunk(a),
      choices: [0, 1].map((index) => ({ index, delta: { content: index ? b : a }, finish_reason: null })),
    });
    const out = await runTransform(stripThinkStream(), [two('<think>a', 'B1'), two('</think>A1', '<think>b</think>B2')]);
    const per = (i: number) => out.map((c) => c.choices.find((x) => x.index === i)?.delta.content ?? '').join('');
    expect(per(0)).toBe('A1');
    expect(per(1)).toBe('B1B2');
  });

  test('ThinkStripper never holds back more than a tag prefix', () => {
    const s = new ThinkStripper();
    expect(s.push('abc<')).toBe('abc');
    expect(s.push('b')).toBe('<b');
    expect(s.push('</think')).toBe('</think');
  });
});

describe('strip_thinking_response plugin', () => {
  test('active only when true; declares a suffix key; default false', () => {
    expect(plugin.isActive(testContext({ params: { strip_thinking_response: true } }))).toBe(true);
    expect(plugin.isActive(testContext({ params: { strip_thinking_response: false } }))).toBe(false);
    expect(plugin.suffixKeys).toEqual(['strip_thinking_response']);
    expect(plugin.parameters.strip_thinking_response!.default).toBe(false);
  });

  test('non-streaming: think blocks removed from the message, reasoning_content kept', async () => {
    const body = await plugin.transformResponse!(completion('<think>hmm</think>\n\nFinal', { reasoning_content: 'r' }), testContext());
    expect(body.choices[0]!.message.content).toBe('Final');
    expect(body.choices[0]!.message.reasoning_content).toBe('r');
  });

  test('streaming: the plugin provides a fresh transform per request', async () => {
    const ctx = testContext({ stream: true });
    const out = await runTransform(plugin.transformStream!(ctx), [contentChunk('<think>x</think>'), contentChunk('ok')]);
    expect(joined(out)).toBe('ok');
  });
});
