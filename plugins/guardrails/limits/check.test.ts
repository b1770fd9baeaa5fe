import { describe, expect, test } from 'bun:test';
import type { ChatMessage } from '@svc/plugin-sdk';
import { countImages, effectiveLimits, limitBreached } from './check';

const limits = effectiveLimits([
  { scope: 'default', limits: { max_messages: 10, max_images: 1, max_input_tokens: 1000 } },
  { scope: 'model', limits: { max_images: 2, max_tools: 3 } },
  { scope: 'key', limits: { max_messages: 2 } },
]);

describe('limits', () => {
  test('more specific layers override field by field', () => {
    expect(Object.fromEntries(limits)).toEqual({
      max_messages: { limit: 2, scope: 'key' },
      max_images: { limit: 2, scope: 'model' },
      max_input_tokens: { limit: 1000, scope: 'default' },
      max_tools: { limit: 3, scope: 'model' },
    });
  });

  test('each refusal names the limit, what the request has and whose limit it is', () => {
    const size = { messages: 1, images: 0, tools: 0, inputTokens: () => 10 };
    expect(limitBreached(size, limits)).toBeNull();
    expect(limitBreached({ ...size, messages: 3 }, limits)).toBe('max_messages exceeded: the request has 3 messages, the key limit is 2');
    expect(limitBreached({ ...size, images: 3 }, limits)).toBe('max_images exceeded: the request has 3 images, the model limit is 2');
    expect(limitBreached({ ...size, tools: 4 }, limits)).toBe(
      'max_tools exceeded: the request has 4 tool definitions, the model limit is 3',
    );
    expect(limitBreached({ ...size, inputTokens: () => 1001 }, limits)).toBe(
      'max_input_tokens exceeded: the request has 1001 input tokens, the default limit is 1000',
    );
  });

  test('tokens are not counted when no token limit applies', () => {
    let counted = false;
    const none = effectiveLimits([{ scope: 'default', limits: { max_messages: 5 } }]);
    limitBreached({ messages: 1, images: 0, tools: 0, inputTokens: () => ((counted = true), 0) }, none);
    expect(counted).toBe(false);
  });

  test('images are counted across messages', () => {
    const messages: ChatMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'image_url', image_url: { url: 'x' } },
        ],
      },
      { role: 'user', content: 'plain' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'y' } }] },
    ];
    expect(countImages(messages)).toBe(2);
  });
});
