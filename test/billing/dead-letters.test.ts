import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { createApiKey } from '../../src/auth/api-keys';
import { createAccount } from '../../src/auth/bootstrap';
import { createScratchAccount } from '../../src/auth/scratch-accounts';
import type { Storage } from '../../src/db/database';
import { accounts, ledgerCharges, ledgerDeadLetters } from '../../src/db/schema';
import type { KeyValueStore } from '../../src/kv/store';
import { createRedisStore } from '../../src/kv/redis';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { BACKENDS } from '../helpers/backends';
import { backendPair, charges, closeInstance, COST, instance, newAccount, openMeterSuite, type MeterInstance } from './meter-helpers';

let up: FixtureUpstream;
beforeAll(() => {
  up = startUpstream('dead-letters');
});
afterAll(() => up.close());

/** The value of a counter or gauge in the instance's /metrics text. */
async function metric(m: MeterInstance, name: string): Promise<number> {
  const text = await (await m.app.handle(new Request('http://localhost/metrics'))).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : Number.NaN;
}

/** An account with `micros` of USD and an INFERENCE key. */
async function funded(storage: Storage, m: MeterInstance, micros = 1_000_000) {
  const account = await newAccount(storage);
  await m.meter.credit({ accountId: account.accountId, currency: 'USD', amountMicros: micros, requestId: `c-${account.accountId}` });
  return account;
}

async function chatOk(m: MeterInstance, secret: string) {
  const res = await m.chat(secret);
  expect(res.status).toBe(200);
  await res.arrayBuffer();
}

const deadLetters = (storage: Storage, requestAccount: string) =>
  storage.db.select().from(ledgerDeadLetters).where(eq(ledgerDeadLetters.accountId, requestAccount));

describe.each(BACKENDS)('a settlement the database refuses on $name', (backend) => {
  let storage: Storage;
  let m: MeterInstance;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ storage, m, close } = await openMeterSuite(backend, { upstreamUrl: up.url }));
  });
  afterAll(() => close());

  test('goes to ledger_dead_letters with its error (counted in /metrics); the rest of its batch and later batches are written', async () => {
    const gone = await funded(storage, m);
    const kept = await funded(storage, m);
    await chatOk(m, gone.secret);
    await chatOk(m, kept.secret);
    // The account disappears while its charge is still queued (another instance deleted it).
    await storage.db.delete(accounts).where(eq(accounts.id, gone.accountId));
    const before = await metric(m, 'svc_ledger_dead_letters_total');

    await m.meter.flush();
    expect(await charges(storage, kept.accountId)).toHaveLength(2);
    const [dead, ...more] = await deadLetters(storage, gone.accountId);
    expect(more).toHaveLength(0);
    expect(dead!.error).toMatch(/^23503 /);
    expect(dead!.charge).toMatchObject({ accountId: gone.accountId, amount: -COST, currency: 'USD' });
    expect(await metric(m, 'svc_ledger_dead_letters_total')).toBe(before + 1);
    expect(await metric(m, 'svc_ledger_write_failing')).toBe(0);
    expect(m.meter.ledgerProblem()).toBeNull();

    // Nothing is left behind the refused row: the next charges are written as usual.
    await chatOk(m, kept.secret);
    await m.meter.flush();
    expect(await charges(storage, kept.accountId)).toHaveLength(4);
    expect(await storage.db.select().from(ledgerCharges).where(eq(ledgerCharges.accountId, gone.accountId))).toHaveLength(0);
    const ready = await m.app.handle(new Request('http://localhost/health/ready'));
    expect(ready.status).toBe(200);
  });
});

describe.each(BACKENDS.filter((b) => b.name === 'external'))(
  'deleting a scratch account while another instance queues its charges',
  (backend) => {
    let storage: Storage;
    let kv: KeyValueStore;
    let other: KeyValueStore;
    let one: MeterInstance;
    let two: MeterInstance;
    let operator: string;

    beforeAll(async () => {
      ({ storage, kv } = await backendPair(backend));
      other = await createRedisStore(process.env.REDIS_URL as string, { prefix: kv.prefix });
      one = await instance({ storage, kv, upstreamUrl: up.url });
      two = await instance({ storage, kv: other, upstreamUrl: up.url });
      const operatorAccount = await createAccount(storage.db, { operator: true });
      operator = (await createApiKey(storage.db, { accountId: operatorAccount, type: 'ADMIN' })).secret;
    });
    afterAll(async () => {
      await closeInstance(one);
      await closeInstance(two);
      await other.close();
      await kv.close();
      await storage.close();
    });

    const remove = (accountId: string) =>
      one.app.handle(
        new Request(`http://localhost/api/v1/admin/accounts/${accountId}`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${operator}` },
        }),
      );

    test('409 with Retry-After while the charge is unwritten; then deleted, nothing dead-lettered, later charges written', async () => {
      const { account } = await createScratchAccount(storage.db, {});
      const { secret } = await createApiKey(storage.db, { accountId: account.id, type: 'INFERENCE' });
      await one.meter.credit({ accountId: account.id, currency: 'USD', amountMicros: 1_000_000, requestId: `c-${account.id}` });
      await chatOk(two, secret);
      // Its settlement reaches Redis a few ms after the answer (its hold covers it meanwhile):
      // instance two's own read waits for it.
      expect(await two.meter.unwrittenCharges(account.id)).toBe(1);
      expect(await one.meter.unwrittenCharges(account.id)).toBe(1);

      const refused = await remove(account.id);
      expect(refused.status).toBe(409);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect((await refused.json()).error).toContain('1 charge(s) not yet written');

      await two.meter.flush();
      expect(await one.meter.unwrittenCharges(account.id)).toBe(0);
      const deleted = await remove(account.id);
      expect(deleted.status).toBe(200);
      expect((await deleted.json()).data.deleted.ledgerEntries).toBe(2);

      // Instance two goes on writing other accounts' charges: nothing was blocked or set aside.
      const kept = await funded(storage, two);
      await chatOk(two, kept.secret);
      await two.meter.flush();
      expect(await charges(storage, kept.accountId)).toHaveLength(2);
      expect(await deadLetters(storage, account.id)).toHaveLength(0);
      expect(two.meter.ledgerProblem()).toBeNull();
    }, 30_000);
  },
);
