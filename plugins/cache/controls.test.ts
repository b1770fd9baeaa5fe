import { describe, expect, test } from 'bun:test';
import { Value } from '@sinclair/typebox/value';
import { cacheParameter, decide, nonDeterministic, parseCacheControl, type DecisionInput } from './controls';
import { withDefaults } from './options';

const none = parseCacheControl(null);
const input = (over: Partial<DecisionInput> = {}): DecisionInput => ({
  param: undefined,
  cacheControl: none,
  modelId: 'm',
  keyId: 'k1',
  req: { temperature: 0 },
  ...over,
});

describe('cache controls', () => {
  test('the parameter accepts a mode or { mode, ttl }, nothing else', () => {
    for (const ok of ['use', 'refresh', 'bypass', { mode: 'use', ttl: 5 }, { ttl: 5 }]) expect(Value.Check(cacheParameter, ok)).toBe(true);
    for (const bad of ['on', { mode: 'use', ttl: 0 }, { mode: 'x' }, { ttl: 1.5 }, { extra: 1 }])
      expect(Value.Check(cacheParameter, bad)).toBe(false);
  });

  test('default: bypass; the request, its key and its model choose, in that order', () => {
    const opts = withDefaults({ models: { m: 'use' }, keys: { k1: 'bypass' } });
    expect(decide(input(), withDefaults()).mode).toBe('bypass');
    expect(decide(input(), withDefaults({ models: { m: 'use' } })).mode).toBe('use');
    expect(decide(input(), opts).mode).toBe('bypass');
    expect(decide(input({ param: 'use' }), opts).mode).toBe('use');
    expect(decide(input({ param: { mode: 'refresh' } }), opts)).toMatchObject({ mode: 'refresh', read: false, write: true });
    expect(decide(input({ param: 'use' }), withDefaults({ enabled: false })).mode).toBe('bypass');
  });

  test('Cache-Control: no-cache refreshes, no-store keeps the answer out, both bypass', () => {
    expect(parseCacheControl('No-Cache, max-age=0')).toEqual({ noCache: true, noStore: false });
    expect(decide(input({ param: 'use', cacheControl: parseCacheControl('no-cache') }), withDefaults())).toMatchObject({
      mode: 'refresh',
      write: true,
    });
    expect(decide(input({ param: 'use', cacheControl: parseCacheControl('no-store') }), withDefaults())).toMatchObject({
      mode: 'use',
      read: true,
      write: false,
    });
    expect(decide(input({ param: 'use', cacheControl: parseCacheControl('no-cache, no-store') }), withDefaults()).mode).toBe('bypass');
    expect(decide(input({ cacheControl: parseCacheControl('no-cache') }), withDefaults()).mode).toBe('bypass');
  });

  test('ttl: the request’s, capped by the operator', () => {
    const opts = withDefaults({ ttlSeconds: 60, maxTtlSeconds: 120 });
    expect(decide(input({ param: 'use' }), opts).ttlMs).toBe(60_000);
    expect(decide(input({ param: { mode: 'use', ttl: 90 } }), opts).ttlMs).toBe(90_000);
    expect(decide(input({ param: { mode: 'use', ttl: 9999 } }), opts).ttlMs).toBe(120_000);
  });

  test('sampled answers without a seed are stored only when the operator allows it', () => {
    expect(nonDeterministic({})).toBe(true);
    expect(nonDeterministic({ temperature: 0.7 })).toBe(true);
    expect(nonDeterministic({ temperature: 0.7, seed: 3 })).toBe(false);
    expect(nonDeterministic({ temperature: 0 })).toBe(false);
    const strict = withDefaults({ cacheNonDeterministic: false });
    expect(decide(input({ param: 'use', req: { temperature: 1 } }), strict)).toMatchObject({ read: true, write: false });
    expect(decide(input({ param: 'use', req: { temperature: 1, seed: 1 } }), strict).write).toBe(true);
    expect(decide(input({ param: 'use', req: { temperature: 1 } }), withDefaults()).write).toBe(true);
  });
});
