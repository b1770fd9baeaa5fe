import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { createApiKey, hashSecret } from '../../src/auth/api-keys';
import { createAccount } from '../../src/auth/bootstrap';
import { createKeyCache } from '../../src/auth/key-cache';
import { parseWalletsConfig } from '../../src/auth/wallet-config';
import { ConfigError } from '../../src/config';
import { apiKeys } from '../../src/db/schema';
import { startTestApp, type TestApp } from '../helpers/app';

describe('key cache', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  test('a lookup that raced an invalidation does not put the stale row back in the cache', async () => {
    const db = t.deps.storage.db;
    const cache = await createKeyCache(db, t.deps.kv);
    try {
      const { secret, row } = await createApiKey(db, { accountId: await createAccount(db), type: 'INFERENCE' });
      const hash = hashSecret(secret);
      const loading = cache.lookup(hash); // reads the row while it is still live
      await cache.invalidate(hash); // the delete's invalidation arrives before the read returns
      expect((await loading)?.id).toBe(row.id);
      await db.update(apiKeys).set({ deletedAt: new Date() }).where(eq(apiKeys.id, row.id));
      expect(await cache.lookup(hash)).toBeNull();
    } finally {
      await cache.close();
    }
  });

  test('hits are served from memory; touch() batches last_used_at into one write at flush', async () => {
    const db = t.deps.storage.db;
    const cache = await createKeyCache(db, t.deps.kv);
    try {
      const { secret, row } = await createApiKey(db, { accountId: await createAccount(db), type: 'INFERENCE' });
      const hash = hashSecret(secret);
      expect((await cache.lookup(hash))?.id).toBe(row.id);
      // Deleted behind the cache's back (no invalidation): the cached hit proves no DB round trip.
      await db.update(apiKeys).set({ deletedAt: new Date() }).where(eq(apiKeys.id, row.id));
      expect((await cache.lookup(hash))?.id).toBe(row.id);
      for (let i = 0; i < 100; i++) cache.touch(row.id);
      const [before] = await db.select({ at: apiKeys.lastUsedAt }).from(apiKeys).where(eq(apiKeys.id, row.id));
      expect(before!.at).toBeNull();
      await cache.flushUsage();
      const [after] = await db.select({ at: apiKeys.lastUsedAt }).from(apiKeys).where(eq(apiKeys.id, row.id));
      expect(after!.at).toBeInstanceOf(Date);
    } finally {
      await cache.close();
    }
  });
});

describe('wallets config', () => {
  test('defaults: Base and Solana mainnet, 5 min window, 30 s skew, 5.5 min nonce memory, 15 min tokens', () => {
    const w = parseWalletsConfig({});
    expect(w.siwx).toMatchObject({
      enabled: true,
      evmChainIds: [8453],
      solanaChainId: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
      maxAgeSeconds: 300,
      maxFutureSeconds: 30,
      nonceTtlSeconds: 330,
    });
    expect(w.web3Keys).toEqual({ tokenTtlSeconds: 900, allowList: [] });
  });

  test('a bad value is a ConfigError naming the field', () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ siwx: { evmChainIds: ['base'] } }, 'wallets.siwx.evmChainIds.0'],
      [{ web3Keys: { allowList: ['nope'] } }, 'wallets.web3Keys.allowList.0'],
      [{ web3Keys: { staking: { rpcUrl: 'http://127.0.0.1:1' } } }, 'wallets.web3Keys.staking.tokenAddress'],
    ];
    for (const [wallets, field] of bad) {
      expect(() => parseWalletsConfig({ wallets })).toThrow(ConfigError);
      expect(() => parseWalletsConfig({ wallets })).toThrow(field);
    }
  });
});
