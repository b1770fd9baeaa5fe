import { describe, expect, test } from 'bun:test';
import { AT_CAPACITY_RETRY_SECONDS, upstreamAtCapacity, upstreamRetryAfter } from '../../providers/errors';
import { retryAfterSeconds, tooManyRequests } from '../../src/http/errors';

describe('Retry-After values', () => {
  const now = Date.parse('2026-07-01T00:00:00Z');
  test("an upstream's seconds or HTTP date, kept within 1..60; the default when absent or unreadable", () => {
    expect(upstreamRetryAfter('7', now)).toBe(7);
    expect(upstreamRetryAfter('2.2', now)).toBe(3);
    expect(upstreamRetryAfter('0', now)).toBe(1);
    expect(upstreamRetryAfter('3600', now)).toBe(60);
    expect(upstreamRetryAfter('Wed, 01 Jul 2026 00:00:12 GMT', now)).toBe(12);
    expect(upstreamRetryAfter('Tue, 30 Jun 2026 23:00:00 GMT', now)).toBe(1);
    for (const v of [null, undefined, '', 'soon', '-5']) expect(upstreamRetryAfter(v, now)).toBe(AT_CAPACITY_RETRY_SECONDS);
  });

  test('the 503 and 429 errors carry the header and say the wait', () => {
    const busy = upstreamAtCapacity('4');
    expect(busy.status).toBe(503);
    expect(busy.headers['retry-after']).toBe('4');
    expect(busy.body.error).toBe('The model is at capacity. Please retry in 4 s.');
    expect(tooManyRequests('x', { a: '1' }, 1500).headers).toEqual({ a: '1', 'retry-after': '2' });
    expect(tooManyRequests('x').headers).toEqual({});
    expect(retryAfterSeconds(0)).toBe(1);
    expect(retryAfterSeconds(59_001)).toBe(60);
  });
});
