import { describe, expect, test } from 'bun:test';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { readFileSync } from 'node:fs';
import { countO200k } from '../../src/tokenizer/count';
import { parseTiktoken, rankOf } from '../../src/tokenizer/rank-table';

const AS_TEXT = { disallowedSpecial: new Set<string>() };
/** gpt-tokenizer's count, the reference (special-token spellings as text). */
const reference = (text: string) => encode(text, AS_TEXT).length;

/** A deterministic generator (mulberry32), so a failing string is the same on every run. */
function seeded(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('o200k_base count', () => {
  test('equals gpt-tokenizer on prose, code, markdown and JSON', () => {
    for (const file of ['README.md', 'src/app.ts', 'package.json', 'bench/README.md']) {
      const text = readFileSync(file, 'utf8');
      expect(countO200k(text)).toBe(reference(text));
    }
  });

  test('equals gpt-tokenizer on 5,000 generated strings of mixed scripts, emoji, digits, whitespace and lone surrogates', () => {
    const parts = [
      'a',
      'Z',
      ' ',
      '  ',
      '\n',
      '\r\n',
      '\t',
      '1',
      '23',
      '456',
      '.',
      ',',
      "'s",
      "'LL",
      '😀',
      '👍🏽',
      '日本',
      'ü',
      'é',
      '\u0301',
    ];
    parts.push('ß', 'İ', '\u0000', '\ud800', '/', '-', '_', 'http', 'тест', 'العربية', '∑', '\u200b', 'the', ' quick');
    const random = seeded(42);
    for (let i = 0; i < 5000; i++) {
      let s = '';
      for (let n = 1 + Math.floor(random() * 30); n > 0; n--) s += parts[Math.floor(random() * parts.length)];
      if (countO200k(s) !== reference(s)) expect(`${JSON.stringify(s)}: ${countO200k(s)}`).toBe(`${JSON.stringify(s)}: ${reference(s)}`);
    }
  });

  test('long pieces merge as tiktoken does', () => {
    for (const s of ['a'.repeat(3000), 'ab'.repeat(999), '😀'.repeat(200), 'x'.repeat(1500) + ' y', '9'.repeat(100)])
      expect(countO200k(s)).toBe(reference(s));
  });

  test('text that spells a special token is counted as that text, not refused', () => {
    expect(countO200k('<|endoftext|>')).toBe(reference('<|endoftext|>'));
    expect(countO200k('<|endoftext|>')).toBeGreaterThan(1);
  });

  test('U+FEFF is one token (rank 5574 of the published rank file); gpt-tokenizer splits it in two', () => {
    expect(countO200k('\ufeff')).toBe(1);
    expect(reference('\ufeff')).toBe(2);
  });

  test('empty text is 0 tokens', () => {
    expect(countO200k('')).toBe(0);
  });
});

describe('rank table', () => {
  test('parses a .tiktoken file; a rank missing from it is no token', () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const file = new TextEncoder().encode(`${b64('a')} 0\n${b64('b')} 1\n${b64('ab')} 3\n${b64('abc')} 4\n`);
    const t = parseTiktoken(file);
    const key = new TextEncoder().encode('abcd');
    expect(rankOf(t, key, 0, 1)).toBe(0);
    expect(rankOf(t, key, 1, 2)).toBe(1);
    expect(rankOf(t, key, 0, 2)).toBe(3);
    expect(rankOf(t, key, 0, 3)).toBe(4);
    expect(rankOf(t, key, 2, 3)).toBe(-1);
    expect(rankOf(t, key, 0, 4)).toBe(-1);
  });
});
