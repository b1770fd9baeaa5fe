import { describe, expect, test } from 'bun:test';
import { withDefaults } from './options';
import { hitCharges, hitSku } from './price';
import { cacheScope } from './scope';

describe('cache scope', () => {
  test('the account by default, the key with scope: key, a shared namespace for accounts that opted in, none without an account', () => {
    expect(cacheScope(withDefaults(), 'a1', 'k1')).toBe('account:a1');
    expect(cacheScope(withDefaults({ scope: 'key' }), 'a1', 'k1')).toBe('key:k1');
    expect(cacheScope(withDefaults({ scope: 'key' }), 'a1', null)).toBe('account:a1');
    const shared = withDefaults({ sharedNamespaces: { team: ['a1', 'a2'] } });
    expect(cacheScope(shared, 'a1', 'k1')).toBe('ns:team');
    expect(cacheScope(shared, 'a2', 'k9')).toBe('ns:team');
    expect(cacheScope(shared, 'a3', 'k1')).toBe('account:a3');
    expect(cacheScope(withDefaults(), null, null)).toBeNull();
  });
});

describe('cache price', () => {
  test('free by default; a fraction of the original plus a fixed price; per model first; integers always', () => {
    expect(hitCharges('m', 1000, withDefaults())).toEqual([{ sku: hitSku('m'), units: 1, unitPriceMicros: 0 }]);
    expect(hitCharges('m', 1001, withDefaults({ price: { fraction: 0.5 } }))[0]!.unitPriceMicros).toBe(501);
    expect(hitCharges('m', 1000, withDefaults({ price: { fraction: 0.1, micros: 5 } }))[0]!.unitPriceMicros).toBe(105);
    const perModel = withDefaults({ price: { fraction: 0.5 }, prices: { m: { micros: 7 } } });
    expect(hitCharges('m', 1000, perModel)[0]!.unitPriceMicros).toBe(7);
    expect(hitCharges('other', 1000, perModel)[0]!.unitPriceMicros).toBe(500);
    expect(hitSku('llama-3.3-70b')).toBe('llama-3.3-70b-cache-hit');
  });
});
