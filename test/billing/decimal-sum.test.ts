import { describe, expect, test } from 'bun:test';
import { DecimalSum } from '../../src/billing/decimal-sum';

const sumOf = (...units: string[]) => {
  const s = new DecimalSum();
  for (const u of units) s.add(u);
  return s.toString();
};

describe('DecimalSum', () => {
  test('an empty sum is 0', () => {
    expect(sumOf()).toBe('0');
  });

  test('token fractions add exactly, at the longest fraction', () => {
    expect(sumOf('0.000012', '0.000050')).toBe('0.000062');
    expect(sumOf('0.1', '0.2')).toBe('0.3');
    expect(sumOf('3600', '0.5', '0.25')).toBe('3600.75');
  });

  test('negative addends and sums below zero keep their sign and leading zero', () => {
    expect(sumOf('-0.5', '0.25')).toBe('-0.25');
    expect(sumOf('-1', '-2')).toBe('-3');
  });

  test('past 2^53 the sum carries on exactly in BigInt', () => {
    expect(sumOf('9007199254740991', '1')).toBe('9007199254740992');
    expect(sumOf('9007199254740991', '2', '0.5')).toBe('9007199254740993.5');
    expect(sumOf('123456789012345678901234567890.000001', '0.000001')).toBe('123456789012345678901234567890.000002');
  });

  test('a long fraction that overflows on rescale switches to BigInt', () => {
    expect(sumOf('90071992547409', '0.00001')).toBe('90071992547409.00001');
  });

  test('a million mtoken lines sum exactly', () => {
    const s = new DecimalSum();
    for (let i = 0; i < 1_000_000; i++) s.add('0.000012');
    expect(s.toString()).toBe('12.000000');
  });
});
