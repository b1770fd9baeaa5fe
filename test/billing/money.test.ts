import { describe, expect, test } from 'bun:test';
import { formatMicros, microsToNumber, tokenCostMicros } from '../../src/billing/money';

describe('money arithmetic', () => {
  test('tokenCostMicros rounds up to the micro-unit, exactly, on both sides of 2^53', () => {
    expect(tokenCostMicros(0, 1_500_000)).toBe(0);
    expect(tokenCostMicros(1, 1_000_000)).toBe(1);
    expect(tokenCostMicros(1, 1)).toBe(1); // a millionth of a micro-unit still costs one
    expect(tokenCostMicros(12, 10_000)).toBe(1); // 0.12 -> 1
    expect(tokenCostMicros(1_000_000, 150_000)).toBe(150_000);
    expect(tokenCostMicros(1_000_001, 150_000)).toBe(150_001);
    // 9e15 * 7 is past 2^53: the BigInt path gives the exact ceiling.
    expect(tokenCostMicros(9_000_000_000_000_000, 7)).toBe(Number((9_000_000_000_000_000n * 7n + 999_999n) / 1_000_000n));
    for (const [tokens, price] of [
      [123_457, 2_500_000],
      [999_999, 999_999],
      [4_096, 60_000_000],
      [7, 3],
    ] as const)
      expect(tokenCostMicros(tokens, price)).toBe(Number((BigInt(tokens) * BigInt(price) + 999_999n) / 1_000_000n));
  });

  test('microsToNumber is the number the 6-place decimal string denotes', () => {
    for (const m of [0, 1, 20, 999_999, 1_000_000, 1_234_567, -120, -1, 10_000_000_000_001, 99_999_999_999_999])
      expect(microsToNumber(m)).toBe(Number(formatMicros(m)));
  });
});
