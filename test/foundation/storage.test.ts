import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import { findKeyByHash, hashSecret } from '../../src/auth/api-keys';
import { bootstrapAdminKey, createAccount } from '../../src/auth/bootstrap';
import { creditAccount } from '../../src/billing/credit';
import type { Storage } from '../../src/db/database';
import { balances, ledgerLines } from '../../src/db/schema';
import { BACKENDS } from '../helpers/backends';
import { rejectionOf } from '../helpers/rejection';

describe.each(BACKENDS)('storage on $name', (backend) => {
  let storage: Storage;
  beforeAll(async () => {
    storage = await backend.storage();
  });
  afterAll(() => storage.close());

  test('migrations created every table', async () => {
    const rows = await storage.db.execute<{ table_name: string }>(
      sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
    );
    const names = ((rows as unknown as { rows?: { table_name: string }[] }).rows ?? (rows as unknown as { table_name: string }[])).map(
      (r) => r.table_name,
    );
    for (const t of ['accounts', 'api_keys', 'balances', 'character_reviews', 'characters', 'ledger_entries', 'rate_limit_logs'])
      expect(names).toContain(t);
  });

  test('bootstrap creates one ADMIN key even when started twice at once', async () => {
    const secrets = await Promise.all([bootstrapAdminKey(storage.db, '100'), bootstrapAdminKey(storage.db, '100')]);
    const created = secrets.filter((s): s is string => s !== null);
    expect(created).toHaveLength(1);
    const key = await findKeyByHash(storage.db, hashSecret(created[0]!));
    expect(key?.type).toBe('ADMIN');
    expect(await bootstrapAdminKey(storage.db, '100')).toBeNull();
  });

  test('a credit and its ledger entry commit together, once per request id', async () => {
    const accountId = await createAccount(storage.db);
    const credit = () => creditAccount(storage.db, { accountId, currency: 'USD', amountMicros: 2_500_000, requestId: 'req-1' });
    const results = await Promise.all([credit(), credit(), credit()]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const [balance] = await storage.db.select().from(balances).where(eq(balances.accountId, accountId));
    expect(balance?.amountMicros).toBe(2_500_000);
    const entries = await storage.db.select().from(ledgerLines).where(eq(ledgerLines.accountId, accountId));
    expect(entries).toHaveLength(1);
    expect(entries[0]?.amountMicros).toBe(2_500_000);
  });

  test('credits refuse non-integer or non-positive amounts', async () => {
    const accountId = await createAccount(storage.db);
    expect(await rejectionOf(creditAccount(storage.db, { accountId, currency: 'USD', amountMicros: 0.5, requestId: 'x' }))).toBeInstanceOf(
      Error,
    );
    expect(await rejectionOf(creditAccount(storage.db, { accountId, currency: 'USD', amountMicros: -1, requestId: 'y' }))).toBeInstanceOf(
      Error,
    );
  });
});
