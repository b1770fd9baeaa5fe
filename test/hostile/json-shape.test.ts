import { describe, expect, test } from 'bun:test';
import { jsonShapeProblem, parseJsonBody, type JsonShapeLimits } from '../../src/http/json-shape';
import { ServiceError } from '../../src/http/errors';

const SMALL: JsonShapeLimits = { maxDepth: 3, maxItems: 4, maxValues: 10 };
const refused = (text: string, limits = SMALL) => jsonShapeProblem(text, limits)?.body.error ?? null;

/** Depth and widest container of a parsed value, counted the way the scan counts them. */
function shapeOf(value: unknown, depth = 0): { depth: number; items: number; values: number } {
  if (value === null || typeof value !== 'object') return { depth, items: 0, values: 0 };
  const children = Array.isArray(value) ? value : Object.values(value);
  let out = { depth: depth + 1, items: children.length, values: Math.max(0, children.length - 1) };
  for (const child of children) {
    const s = shapeOf(child, depth + 1);
    out = { depth: Math.max(out.depth, s.depth), items: Math.max(out.items, s.items), values: out.values + s.values };
  }
  return out;
}

/** A deterministic generator (mulberry32). */
function seeded(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random JSON value whose strings are full of brackets, commas, quotes and backslashes. */
function randomValue(random: () => number, depth: number): unknown {
  const pick = random();
  const text = () => Array.from({ length: Math.floor(random() * 6) }, () => '[]{},"\\ a\u00e9😀'[Math.floor(random() * 12)]).join('');
  if (depth > 5 || pick < 0.3) return text();
  if (pick < 0.4) return random() * 1e6;
  if (pick < 0.45) return null;
  const n = Math.floor(random() * 5);
  if (pick < 0.7) return Array.from({ length: n }, () => randomValue(random, depth + 1));
  return Object.fromEntries(Array.from({ length: n }, () => [text(), randomValue(random, depth + 1)]));
}

describe('JSON shape scan', () => {
  test('counts depth, items and values outside strings only', () => {
    expect(refused('[[["a"]]]')).toBeNull();
    expect(refused('[[[["a"]]]]')).toContain('limit maxDepth');
    expect(refused('{"a":{"b":{"c":{"d":1}}}}')).toContain('limit maxDepth');
    expect(refused('["[[[[[[", "{{{{{{", "]]]]"]')).toBeNull();
    expect(refused('[1,2,3,4]')).toBeNull();
    expect(refused('[1,2,3,4,5]')).toContain('limit maxItems');
    expect(refused('{"a":1,"b":2,"c":3,"d":4,"e":5}')).toContain('limit maxItems');
    expect(refused('["a,b,c,d,e,f,g"]')).toBeNull();
    expect(refused('[[1,2,3],[1,2,3],[1,2,3],[1,2]]')).toContain('limit maxValues');
  });

  test('escaped quotes and backslashes do not end a string early', () => {
    expect(refused('["\\"[[[[[[", "x"]')).toBeNull();
    expect(refused('["\\\\", [[[1]]]]')).toContain('limit maxDepth');
    expect(refused('["\\\\\\"[[[[", 1]')).toBeNull();
    expect(refused('["a\\\\\\\\"]')).toBeNull();
  });

  test('malformed text is left to JSON.parse (an unterminated string is not refused by the scan)', () => {
    expect(refused('["abc')).toBeNull();
    expect(() => parseJsonBody('["abc')).toThrow(SyntaxError);
    expect(refused(']]]]]]')).toBeNull();
  });

  test('parseJsonBody throws the 400 ServiceError naming the limit, with details under body', () => {
    let thrown: unknown;
    try {
      parseJsonBody('['.repeat(200) + ']'.repeat(200));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ServiceError);
    const e = thrown as ServiceError;
    expect(e.status).toBe(400);
    expect(e.body.error).toBe('Invalid request body: the JSON has arrays and objects nested more than 128 deep (limit maxDepth)');
    expect(e.body.details?.body).toEqual({ _errors: ['exceeds the JSON maxDepth limit: arrays and objects nested more than 128 deep'] });
  });

  test('on 2,000 random values, the scan refuses exactly those whose parsed shape passes a limit', () => {
    const random = seeded(99);
    const limits: JsonShapeLimits = { maxDepth: 4, maxItems: 3, maxValues: 12 };
    let refusals = 0;
    for (let i = 0; i < 2000; i++) {
      const value = randomValue(random, 0);
      const text = JSON.stringify(value);
      const s = shapeOf(value);
      const expected = s.depth > limits.maxDepth || s.items > limits.maxItems || s.values >= limits.maxValues;
      if (expected) refusals++;
      expect(`${text}: ${jsonShapeProblem(text, limits) !== null}`).toBe(`${text}: ${expected}`);
    }
    expect(refusals).toBeGreaterThan(100);
  });
});
