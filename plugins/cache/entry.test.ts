import { describe, expect, test } from 'bun:test';
import type { ChatCompletion } from '@svc/plugin-sdk';
import { decodeEntry, encodeEntry, ENTRY_VERSION, type CacheEntry } from './entry';

const completion = (content: string): ChatCompletion => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop', logprobs: null }],
  usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
});
const entry = (content: string): CacheEntry => ({ completion: completion(content), storedAt: 1_000, costMicros: 42 });

describe('cache entry', () => {
  test('small entries are stored raw, larger ones deflated; both round-trip', () => {
    const small = encodeEntry(entry('hi ✓'), 1024, 1 << 20)!;
    expect([small[0], small[1]]).toEqual([ENTRY_VERSION, 0]);
    expect(decodeEntry(small, 1 << 20)).toEqual(entry('hi ✓'));
    const text = 'lorem ipsum '.repeat(1000);
    const big = encodeEntry(entry(text), 1024, 1 << 20)!;
    expect(big[1]).toBe(1);
    expect(big.byteLength).toBeLessThan(text.length / 10);
    expect(decodeEntry(big, 1 << 20)).toEqual(entry(text));
  });

  test('over the size cap: not stored', () => {
    expect(encodeEntry(entry('x'.repeat(2000)), 1024, 1000)).toBeNull();
  });

  test('another version, garbage or an inflation past the cap read as a miss', () => {
    const bytes = encodeEntry(entry('hi'), 1024, 1 << 20)!;
    expect(decodeEntry(Uint8Array.of(ENTRY_VERSION + 1, ...bytes.subarray(1)), 1 << 20)).toBeNull();
    expect(decodeEntry(Uint8Array.of(ENTRY_VERSION, 1, 1, 2, 3), 1 << 20)).toBeNull();
    expect(decodeEntry(Uint8Array.of(ENTRY_VERSION, 0, 123), 1 << 20)).toBeNull();
    const big = encodeEntry(entry('a'.repeat(100_000)), 0, 1 << 20)!;
    expect(decodeEntry(big, 10_000)).toBeNull();
  });
});
