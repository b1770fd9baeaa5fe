import { describe, expect, test } from 'bun:test';
import { contentChunk, joined, runTransform, testContext, testModel, testRequest } from '../../test/plugins-e2e/context';
import { disableThinking as plugin } from './index';

const supporting = testModel({ supportsReasoning: true, supportsDisableThinking: true });
const plain = testModel({ supportsReasoning: true });

describe('disable_thinking', () => {
  test('active only when true; suffix key; default false', () => {
    expect(plugin.isActive(testContext({ params: { disable_thinking: true } }))).toBe(true);
    expect(plugin.isActive(testContext({ params: { disable_thinking: false } }))).toBe(false);
    expect(plugin.suffixKeys).toEqual(['disable_thinking']);
    expect(plugin.parameters.disable_thinking!.default).toBe(false);
  });

  test('supporting model: chat_template_kwargs.enable_thinking=false, caller kwargs kept, no reasoning_effort', () => {
    const req = testRequest([{ role: 'user', content: 'Hi' }]);
    req.chat_template_kwargs = { custom: 1, enable_thinking: true };
    plugin.transformRequest!(req, testContext({ model: supporting }));
    expect(req.chat_template_kwargs).toEqual({ custom: 1, enable_thinking: false });
    expect(req.reasoning_effort).toBeUndefined();
  });

  test('model without the capability: the upstream request is unchanged', () => {
    const req = testRequest([{ role: 'user', content: 'Hi' }]);
    plugin.transformRequest!(req, testContext({ model: plain }));
    expect(req).toEqual(testRequest([{ role: 'user', content: 'Hi' }]));
  });

  test('stream: think blocks and reasoning_content are stripped', async () => {
    const out = await runTransform(plugin.transformStream!(testContext({ stream: true })), [
      contentChunk(null, { reasoning_content: 'thinking...' }),
      contentChunk('<thi'),
      contentChunk('nk>x</think>Hello'),
      contentChunk(null, {}, 'stop'),
    ]);
    expect(joined(out)).toBe('Hello');
    expect(out.some((c) => 'reasoning_content' in (c.choices[0]?.delta ?? {}))).toBe(false);
  });

  test('JSON: think blocks and reasoning_content are stripped', async () => {
    const body = await plugin.transformResponse!(
      {
        id: 'x',
        object: 'chat.completion',
        created: 1,
        model: 'm',
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: '<think>a</think>B', reasoning_content: 'r' },
            finish_reason: 'stop',
            logprobs: null,
          },
        ],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      },
      testContext(),
    );
    expect(body.choices[0]!.message).toEqual({ role: 'assistant', content: 'B' });
  });
});
