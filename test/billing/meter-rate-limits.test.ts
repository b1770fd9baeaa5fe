import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { parseConfig } from '../../src/config';
import type { Storage } from '../../src/db/database';
import type { KeyValueStore } from '../../src/kv/store';
import { createRateLimiter } from '../../src/limits/limiter';
import type { RateLimiter } from '../../src/limits/types';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { BACKENDS } from '../helpers/backends';
import { awayFromMinuteBoundary } from '../limits/helpers';
import { backendPair, charges, closeInstance, COST, instance, newAccount, type MeterInstance } from './meter-helpers';

// The meter counts the rate limits in the same atomic step as the reservation (one script on
// Redis): the outcome must be as if the limiter ran first, on both backends.
let up: FixtureUpstream;
beforeAll(() => {
  up = startUpstream('meter-rate-limits');
});
afterAll(() => up.close());

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** A real limiter over the pair's storage and KV, as createDeps builds it. */
const limiterOf = (storage: Storage, kv: KeyValueStore) =>
  createRateLimiter({ config: parseConfig({ logLevel: 'silent' }), storage, kv, now: Date.now, log: silent });

const rl = (res: Response, name: string) => Number(res.headers.get(`x-ratelimit-${name}`));

describe.each(BACKENDS)('rate limits inside the meter on $name', (backend) => {
  let storage: Storage;
  let kv: KeyValueStore;
  let limits: RateLimiter;
  let refuse = false;
  let m: MeterInstance;
  beforeAll(async () => {
    ({ storage, kv } = await backendPair(backend));
    const real = await limiterOf(storage, kv);
    // The real limiter, whose count can be made to refuse (a limit of 0 requests).
    limits = {
      ...real,
      async plan(...args) {
        const plan = await real.plan(...args);
        return plan && refuse ? { ...plan, rpm: 0 } : plan;
      },
    };
    // No hold sweep during the suite: the command count below sees only requests.
    m = await instance({ storage, kv, upstreamUrl: up.url, limits, billing: { holdSweepIntervalMs: 600_000 } });
  });
  afterAll(async () => {
    await closeInstance(m);
    await limits.close();
    await kv.close();
    await storage.close();
  });

  test('a 402 counts the request and gives its tokens back; a settlement corrects the tokens to what was used', async () => {
    await awayFromMinuteBoundary(false, 3_000);
    const { accountId, secret } = await newAccount(storage);
    // max_tokens 8: 10 prompt + 8 completion tokens reserved, 26 micro-USD; the fixture answers 5 tokens (15 used, 20 micro-USD).
    const broke = await m.chat(secret, { max_tokens: 8 });
    expect(broke.status).toBe(402);
    const rpm = rl(broke, 'limit-requests');
    const tpm = rl(broke, 'limit-tokens');
    expect(rpm).toBeGreaterThan(3);
    // The 402 shows the counts with its reservation, as the limiter admitted it.
    expect(rl(broke, 'remaining-requests')).toBe(rpm - 1);
    expect(rl(broke, 'remaining-tokens')).toBe(tpm - 18);
    expect(broke.headers.get('x-svc-balance-usd')).toBeNull();

    await m.meter.credit({ accountId, currency: 'USD', amountMicros: 26, requestId: `f-${accountId}` });
    const ok = await m.chat(secret, { max_tokens: 8 });
    expect(ok.status).toBe(200);
    // The 402's tokens were given back: only this request's 18 are counted.
    expect(rl(ok, 'remaining-requests')).toBe(rpm - 2);
    expect(rl(ok, 'remaining-tokens')).toBe(tpm - 18);
    expect(ok.headers.get('x-svc-balance-usd')).toBe('0.000026');
    await ok.arrayBuffer();

    // 26 - 20 left: a 402 again, after the settlement took the 3 unused tokens back.
    const after = await m.chat(secret, { max_tokens: 8 });
    expect(after.status).toBe(402);
    expect(rl(after, 'remaining-requests')).toBe(rpm - 3);
    expect(rl(after, 'remaining-tokens')).toBe(tpm - 15 - 18);
  });

  test('a request the rate limit refuses (429) takes no hold and charges nothing', async () => {
    const { accountId, secret } = await newAccount(storage);
    await m.meter.credit({ accountId, currency: 'USD', amountMicros: COST, requestId: `f-${accountId}` });
    refuse = true;
    const limited = await m.chat(secret).finally(() => (refuse = false));
    expect(limited.status).toBe(429);
    expect((await limited.json()).error).toContain('Rate limit exceeded');
    // The balance covers exactly one request: a hold left by the 429 would make this a 402.
    const ok = await m.chat(secret);
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
    expect((await m.meter.balances(accountId)).USD).toBe(0);
    await m.meter.flush();
    expect((await charges(storage, accountId)).map((r) => r.requestId)).not.toContain(limited.headers.get('cf-ray'));
  });

  test.skipIf(backend.name !== 'external')(
    'one Redis command admits a request, one settles it; a 402 or a 429 costs one in all',
    async () => {
      const { accountId, secret } = await newAccount(storage);
      const broke = await newAccount(storage);
      await m.meter.credit({ accountId, currency: 'USD', amountMicros: 10 * COST, requestId: `f-${accountId}` });
      // The first request of an account initialises its mirrors and writes the hold index.
      expect((await m.chat(secret)).status).toBe(200);
      expect((await m.chat(broke.secret)).status).toBe(402);
      // Those two settlements land first: only the next three count.
      await m.meter.flush();
      const link = kv.redis!;
      const send = link.send;
      let sent: string[] = [];
      link.send = (command, args) => (sent.push(command === 'EVALSHA' ? `EVALSHA ${args[1]}` : command), send.call(link, command, args));
      try {
        for (let i = 0; i < 3; i++) {
          const res = await m.chat(secret);
          expect(res.status).toBe(200);
          await res.arrayBuffer();
        }
        // Per request: the reservation with the rate limits (9 keys: the account's 3 hold hashes,
        // its index marker, the rate-limit window, and the balance mirror of each of the 4
        // candidates an API key spends, USDC last, which include the 2 reported ones; no key
        // limit, so no counter). The settlements go after their answers, those of a few ms in
        // one script: the account's 3 hold hashes and its unwritten marks, then 2 keys each (its
        // done marker and mirror: no counter, and no token correction, so no rate window).
        const settled = () => sent.filter((s) => s !== 'EVALSHA 9').reduce((n, s) => n + (Number(s.split(' ')[1]) - 4) / 2, 0);
        for (let i = 0; i < 100 && settled() < 3; i++) await Bun.sleep(10);
        expect(sent.filter((s) => s === 'EVALSHA 9')).toHaveLength(3);
        expect(sent.filter((s) => s !== 'EVALSHA 9').every((s) => /^EVALSHA (6|8|10)$/.test(s))).toBe(true);
        expect(settled()).toBe(3);
        sent = [];
        expect((await m.chat(broke.secret)).status).toBe(402);
        refuse = true;
        expect((await m.chat(secret).finally(() => (refuse = false))).status).toBe(429);
        expect(sent).toEqual(['EVALSHA 9', 'EVALSHA 9']);
      } finally {
        link.send = send;
      }
    },
  );
});
