import { describe, expect, test } from 'bun:test';
import { cacheKey, canonicalJson } from './key';

const base = {
  model: 'm',
  messages: [{ role: 'user', content: 'Hi' }],
  temperature: 0,
  tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'string' } } } } }],
};

describe('cache key', () => {
  test('canonical JSON sorts keys at every depth and drops undefined fields', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[1,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson({ a: '  spaced  ' })).toBe('{"a":"  spaced  "}');
  });

  test('key order, transport and labels do not change the key', () => {
    const k = cacheKey('account:a', 'm', base);
    const reordered = JSON.parse(
      `{"tools":${JSON.stringify(base.tools)},"temperature":0,"messages":[{"content":"Hi","role":"user"}],"model":"m"}`,
    );
    expect(cacheKey('account:a', 'm', reordered)).toBe(k);
    const labelled = {
      ...base,
      stream: true,
      stream_options: { include_usage: true },
      user: 'u',
      metadata: { x: '1' },
      store: true,
      prompt_cache_key: 'p',
    };
    expect(cacheKey('account:a', 'm', labelled)).toBe(k);
    expect(k).toMatch(/^[0-9a-f]{64}$/);
  });

  test('everything that changes the answer changes the key', () => {
    const k = cacheKey('account:a', 'm', base);
    const variants: Record<string, unknown>[] = [
      { ...base, messages: [{ role: 'user', content: 'Hi ' }] },
      { ...base, temperature: 0.5 },
      { ...base, seed: 1 },
      { ...base, n: 2 },
      { ...base, tool_choice: 'required' },
      { ...base, response_format: { type: 'json_object' } },
      { ...base, max_tokens: 10 },
      { ...base, tools: [] },
      { ...base, some_future_field: true },
    ];
    const keys = new Set(variants.map((v) => cacheKey('account:a', 'm', v)));
    expect(keys.size).toBe(variants.length);
    expect(keys.has(k)).toBe(false);
  });

  test('scope and catalog model are part of the key', () => {
    const k = cacheKey('account:a', 'm', base);
    expect(cacheKey('account:b', 'm', base)).not.toBe(k);
    expect(cacheKey('account:a', 'other', base)).not.toBe(k);
  });
});
