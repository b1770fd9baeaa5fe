import { describe, expect, test } from 'bun:test';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { countO200k, loadTokenizer } from '../../src/tokenizer/count';

const AS_TEXT = { disallowedSpecial: new Set<string>() };
/** gpt-tokenizer's count, the reference (quadratic on long pieces, so fed only a few thousand characters). */
const reference = (text: string) => encode(text, AS_TEXT).length;

/** `length` letters drawn from `alphabet` (ASCII), built as bytes: string appends are slow at megabytes. */
function letters(random: () => number, alphabet: string, length: number): string {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = alphabet.charCodeAt(Math.floor(random() * alphabet.length));
  return new TextDecoder().decode(bytes);
}

/** A deterministic generator (mulberry32), so a failing string is the same on every run. */
function seeded(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * CPU time of one count, in ms. CPU time, not wall time: 8 engineers share 2 cores here, and
 * wall time measured the queue for the CPU (5x the CPU time under that load). The quadratic
 * count this replaces took 7.3 s for 100,000 letters and minutes for a megabyte.
 */
function cpuMsOf(text: string): { tokens: number; ms: number } {
  const before = process.cpuUsage();
  const tokens = countO200k(text);
  const used = process.cpuUsage(before);
  return { tokens, ms: (used.user + used.system) / 1000 };
}

const MB = 1 << 20;

describe('counting cost is linear in the input', () => {
  loadTokenizer();

  test('long pieces of 300 to 8,000 characters from small alphabets count exactly as gpt-tokenizer (the heap merge)', () => {
    const random = seeded(7);
    const alphabets = ['ab', 'aeiou', 'xyzXYZ', 'é日本', '😀😃a', 'qwertyuiopasdfghjklzxcvbnm', 'ßüİ'];
    for (let i = 0; i < 40; i++) {
      const alphabet = [...alphabets[i % alphabets.length]!];
      const length = 300 + Math.floor(random() * (i < 35 ? 2_000 : 8_000));
      let s = '';
      for (let n = 0; n < length; n++) s += alphabet[Math.floor(random() * alphabet.length)];
      expect(`${i}: ${countO200k(s)}`).toBe(`${i}: ${reference(s)}`);
    }
    for (const s of ['a'.repeat(5_000), ' '.repeat(3_000) + 'x', '7'.repeat(3_000), '😀'.repeat(1_000), 'Hello'.repeat(1_000)])
      expect(countO200k(s)).toBe(reference(s));
  }, 20_000); // the reference is quadratic on these pieces

  test('a 1 MB run of one letter counts in under 1 s of CPU', () => {
    const { tokens, ms } = cpuMsOf('a'.repeat(MB));
    expect(tokens).toBe(MB / 8);
    expect(ms).toBeLessThan(1000);
  });

  test('a 1 MB run of mixed letters with no space counts in under 1 s of CPU', () => {
    const { tokens, ms } = cpuMsOf(letters(seeded(11), 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', MB));
    expect(tokens).toBeGreaterThan(MB / 8);
    expect(ms).toBeLessThan(1000);
  });

  test('a run of 1,000,000 digits counts in under 1 s of CPU (three digits a token)', () => {
    const { tokens, ms } = cpuMsOf('7'.repeat(1_000_000));
    expect(tokens).toBe(Math.ceil(1_000_000 / 3));
    expect(ms).toBeLessThan(1000);
  });

  test('a run of 250,000 of one emoji (1 MB of UTF-8) counts in under 1 s of CPU', () => {
    const { tokens, ms } = cpuMsOf('😀'.repeat(250_000));
    expect(tokens).toBeGreaterThan(0);
    expect(ms).toBeLessThan(1000);
  });

  test('1 MB of random UTF-16 units (lone surrogates included) counts in under 2 s of CPU', () => {
    const random = seeded(3);
    const units = new Uint16Array(MB / 2);
    for (let i = 0; i < units.length; i++) units[i] = Math.floor(random() * 65536);
    let s = '';
    for (let i = 0; i < units.length; i += 8192) s += String.fromCharCode(...units.subarray(i, i + 8192));
    const { tokens, ms } = cpuMsOf(s);
    expect(tokens).toBeGreaterThan(0);
    expect(ms).toBeLessThan(2000);
  });

  test('1 MB of random bytes read as UTF-8 counts in under 1 s of CPU', () => {
    const random = seeded(5);
    const bytes = new Uint8Array(MB);
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256);
    const { tokens, ms } = cpuMsOf(new TextDecoder().decode(bytes));
    expect(tokens).toBeGreaterThan(0);
    expect(ms).toBeLessThan(1000);
  });

  test('cost grows linearly: 2 MB of mixed letters cost under 16 times what 256 KB cost (8 times the text; quadratic is 64)', () => {
    const s = letters(seeded(13), 'abcdefghij', 2 * MB);
    const small = cpuMsOf(s.slice(0, MB / 4)).ms;
    const large = cpuMsOf(s).ms;
    expect(large).toBeLessThan(Math.max(16 * small, 50));
  }, 20_000); // 2.3 MB counted: seconds of wall time on a loaded machine
});
