import { describe, expect, test } from 'bun:test';
import { arrayElements, documentMembers } from '../../providers/openai-compatible/json-spans';

/** A small deterministic PRNG, so a failure names a reproducible case. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['a', ']', '}', '[', '{', '"', '\\', '\n', '\u0001', 'é', '😀', ':', ',', ' '];

/** A random JSON value: strings with every character that matters to a scanner, numbers, literals, nesting. */
function randomValue(next: () => number, depth: number): unknown {
  const kind = Math.floor(next() * (depth > 3 ? 4 : 6));
  if (kind === 0) return Array.from({ length: Math.floor(next() * 6) }, () => PIECES[Math.floor(next() * PIECES.length)]).join('');
  if (kind === 1) return [0, -0, 1e-7, -3.5e21, 0.1, 42][Math.floor(next() * 6)];
  if (kind === 2) return [true, false, null][Math.floor(next() * 3)];
  if (kind === 3) return Math.floor(next() * 1000);
  if (kind === 4) return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
  return randomObject(next, depth + 1);
}

function randomObject(next: () => number, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = Math.floor(next() * 5); i > 0; i--) out[`k${i}${PIECES[Math.floor(next() * PIECES.length)]}`] = randomValue(next, depth);
  return out;
}

/** JSON text with random whitespace between tokens (outside strings). */
function spaced(value: unknown, next: () => number): string {
  const ws = () => [' ', '', '\n  ', '\t', '\r\n'][Math.floor(next() * 5)];
  if (Array.isArray(value)) return `[${ws()}${value.map((v) => `${spaced(v, next)}${ws()}`).join(`,${ws()}`)}]`;
  if (value && typeof value === 'object')
    return `{${ws()}${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}${ws()}:${ws()}${spaced(v, next)}${ws()}`)
      .join(`,${ws()}`)}}`;
  return JSON.stringify(value);
}

describe('json-spans', () => {
  const next = rng(19);
  const documents = Array.from({ length: 300 }, () => {
    const value = randomObject(next, 0);
    const text = `${[' ', '', '\n'][Math.floor(next() * 3)]}${spaced(value, next)}\n`;
    return { value: JSON.parse(text) as Record<string, unknown>, text };
  });

  test('each member of 300 random documents spans exactly its value, as JSON.parse reads it', () => {
    for (const { value, text } of documents) {
      const members = documentMembers(text);
      expect([...members.keys()]).toEqual(Object.keys(value));
      for (const [key, span] of members) expect(JSON.parse(text.slice(span.start, span.end))).toEqual(value[key]);
    }
  });

  test('each element of an array spans exactly its value', () => {
    for (const { value, text } of documents.slice(0, 50)) {
      const array = `[${text}, ${text}]`;
      const { elements, end } = arrayElements(array, 0);
      expect(end).toBe(array.length);
      for (const span of elements) expect(JSON.parse(array.slice(span.start, span.end))).toEqual(value);
    }
  });

  test('every proper prefix of a document is refused', () => {
    for (const { text } of documents.slice(0, 40)) {
      const end = text.trimEnd().length;
      for (let cut = 0; cut < end; cut++) expect(() => documentMembers(text.slice(0, cut))).toThrow(SyntaxError);
    }
  });

  const refused: [string, string][] = [
    ['a document that is not an object', '[1]'],
    ['text after the document', '{"a":1} x'],
    ['a missing colon', '{"a" 1}'],
    ['a trailing comma', '{"a":1,}'],
    ['an unquoted key', '{a:1}'],
    ['a bad escape in a skipped string', '{"a":["\\q"]}'],
    ['a raw control character in a string', '{"a":"x\ty"}'],
    ['a mismatched bracket in a skipped container', '{"a":[{]}'],
    ['a bare word', '{"a":nope}'],
  ];
  for (const [what, text] of refused) test(`${what} is refused`, () => expect(() => documentMembers(text)).toThrow(SyntaxError));

  test('a repeated key keeps its last value, as JSON.parse does', () => {
    const text = '{"a":1,"a":[2]}';
    const span = documentMembers(text).get('a')!;
    expect(text.slice(span.start, span.end)).toBe('[2]');
  });
});
