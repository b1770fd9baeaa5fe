import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { createApiKey } from '../../src/auth/api-keys';
import { createAccount } from '../../src/auth/bootstrap';
import type { Storage } from '../../src/db/database';
import { openPostgres } from '../../src/db/open';
import type { KeyValueStore } from '../../src/kv/store';
import { createRedisStore } from '../../src/kv/redis';
import { charges, closeInstance, instance, type MeterInstance } from '../billing/meter-helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTcpProxy, type ProxyMode, type TcpProxy } from '../helpers/tcp-proxy';
import { rejectionOf } from '../helpers/rejection';

// A Postgres outage needs a Postgres to lose: the shared one is reached through a proxy this test cuts.
const DATABASE_URL = process.env.DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL;
/** What an outage must be answered within (the database deadline is 1.5 s). */
const BOUND_MS = 2_000;
/** How soon after Postgres returns an instance must serve again, whatever the outage's length. */
const RECOVERY_MS = 5_000;

const suite = DATABASE_URL && REDIS_URL ? describe : describe.skip;

suite('a Postgres outage answers 503 with Retry-After, never 500, and charges nothing', () => {
  let up: FixtureUpstream;
  let proxy: TcpProxy;
  let name: string;
  let storage: Storage;
  let kv: KeyValueStore;
  let m: MeterInstance;
  let admin: string;
  let proxiedUrl: string;

  const admin_ = () => postgres(DATABASE_URL!, { max: 1, onnotice: () => {} });

  beforeAll(async () => {
    up = startUpstream('pg-outage');
    name = `svc_pgo_${randomBytes(5).toString('hex')}`;
    const sql = admin_();
    await sql.unsafe(`CREATE DATABASE ${name}`);
    await sql.end();
    const target = new URL(DATABASE_URL!);
    proxy = startTcpProxy(Number(target.port || 5432));
    target.port = String(proxy.port);
    target.pathname = `/${name}`;
    proxiedUrl = target.toString();
    storage = await openPostgres(proxiedUrl, { max: 10 });
    kv = await createRedisStore(REDIS_URL!, { prefix: `pgo:${randomBytes(4).toString('hex')}:` });
    m = await instance({ storage, kv, upstreamUrl: up.url });
    const operator = await createAccount(storage.db, { operator: true, creditUsd: '1' });
    admin = (await createApiKey(storage.db, { accountId: operator, type: 'ADMIN' })).secret;
  }, 60_000);

  afterAll(async () => {
    proxy?.set('open');
    if (m) await closeInstance(m);
    await kv?.close();
    await storage?.close();
    proxy?.close();
    up?.close();
    const sql = admin_();
    await sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await sql.end();
  }, 30_000);

  const call = async (path: string, key: string, init: RequestInit & { json?: unknown } = {}) => {
    const started = performance.now();
    const res = await m.app.handle(
      new Request(`http://localhost${/^\/(health|metrics)/.test(path) ? '' : '/api/v1'}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, ...(init.json ? { 'content-type': 'application/json' } : {}) },
        body: init.json ? JSON.stringify(init.json) : init.body,
      }),
    );
    const body = await res.text();
    return { status: res.status, ms: performance.now() - started, retryAfter: res.headers.get('retry-after'), body };
  };
  const chat = (key: string) =>
    call('/chat/completions', key, {
      method: 'POST',
      json: { model: 'fix', messages: [{ role: 'user', content: 'one two three four' }], max_tokens: 5 },
    });

  /** A funded account with an INFERENCE key, created while the database is up. */
  async function customer() {
    const accountId = await createAccount(storage.db, {});
    const { secret } = await createApiKey(storage.db, { accountId, type: 'INFERENCE' });
    await m.meter.credit({ accountId, currency: 'USD', amountMicros: 1_000_000, requestId: `c-${accountId}` });
    return { accountId, secret };
  }

  for (const mode of ['refuse', 'blackhole'] as ProxyMode[])
    test(`${mode}: a key first used, an ADMIN route and readiness answer 503 within 2 s; the queued charge is written after`, async () => {
      const known = await customer();
      const fresh = await customer();
      // Used before the outage: its key and balance are cached, its charge is queued for the ledger.
      expect((await chat(known.secret)).status).toBe(200);
      expect((await call('/api_keys/rate_limits', admin)).status).toBe(200);

      proxy.set(mode);
      try {
        for (const r of [await chat(fresh.secret), await call('/api_keys', admin), await call('/billing/balance', fresh.secret)]) {
          expect({ status: r.status, retryAfter: r.retryAfter }).toEqual({ status: 503, retryAfter: '2' });
          expect(JSON.parse(r.body).error).toContain('database is unreachable');
          expect(r.ms).toBeLessThan(BOUND_MS);
        }
        // The ledger writer cannot write: readiness and the metric say so, the charge stays queued.
        expect(await rejectionOf(m.meter.flush())).toBeInstanceOf(Error);
        expect(m.meter.ledgerProblem()).not.toBeNull();
        const ready = await call('/health/ready', '');
        expect(ready.status).toBe(503);
        expect(JSON.parse(ready.body).checks).toMatchObject({ ledger: 'cannot write' });
        expect((await call('/metrics', '')).body).toContain('svc_ledger_write_failing 1');
      } finally {
        proxy.set('open');
      }

      // Back: the new key works, the queued charge reaches the ledger once, readiness returns.
      let served = await chat(fresh.secret);
      for (let i = 0; i < 20 && served.status !== 200; i++) {
        await Bun.sleep(250);
        served = await chat(fresh.secret);
      }
      expect(served.status).toBe(200);
      await m.meter.flush();
      expect(m.meter.ledgerProblem()).toBeNull();
      expect(await charges(storage, known.accountId)).toHaveLength(2);
      expect(await charges(storage, fresh.accountId)).toHaveLength(2);
      expect((await call('/health/ready', '')).status).toBe(200);
    }, 60_000);

  /** Polls `probe` until it answers 200; the ms it took, or Infinity after `withinMs`. */
  async function msUntil200(probe: () => Promise<{ status: number }>, withinMs: number): Promise<number> {
    const from = performance.now();
    while (performance.now() - from < withinMs) {
      if ((await probe()).status === 200) return performance.now() - from;
      await Bun.sleep(100);
    }
    return Infinity;
  }

  // The driver's reconnect backoff grew with the outage (3^n / 100 s, up to 20 s, after n
  // failed attempts in a row): after a long outage a pool waited seconds to try the database
  // that was back. An instance with a one-connection pool shows it best (a larger pool is
  // served by whichever connection's wait ends first: 2 to 4 s here with ten).
  for (const outageMs of [5_000, 30_000])
    test(
      `after a ${outageMs / 1000} s outage under traffic, an instance serves again within ${RECOVERY_MS / 1000} s`,
      async () => {
        const fresh = await customer();
        const main = m;
        const small = await openPostgres(proxiedUrl, { max: 1 });
        m = await instance({ storage: small, kv, upstreamUrl: up.url });
        try {
          // Postgres stopped: connections refused, each failed attempt counted by the driver.
          proxy.set('down');
          const until = performance.now() + outageMs;
          try {
            // Traffic meanwhile: every request tries the database and fails fast, as clients retry.
            while (performance.now() < until) {
              expect((await call('/api_keys', admin)).status).toBe(503);
              await Bun.sleep(100);
            }
          } finally {
            proxy.set('open');
          }
          const served = await msUntil200(() => call('/api_keys', admin), 4 * RECOVERY_MS);
          const firstUse = await msUntil200(() => chat(fresh.secret), RECOVERY_MS);
          const ready = await msUntil200(() => call('/health/ready', ''), RECOVERY_MS);
          console.log(
            `after a ${outageMs / 1000} s outage: served in ${Math.round(served)} ms, then ${Math.round(firstUse + ready)} ms more`,
          );
          expect(served + firstUse + ready).toBeLessThan(RECOVERY_MS);
        } finally {
          await closeInstance(m);
          m = main;
          await small.close();
        }
      },
      outageMs + 60_000,
    );
});
