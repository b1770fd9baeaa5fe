import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccount } from '../../src/auth/bootstrap';
import { pgliteOf } from '../../src/billing/ledger-copy';
import type { Storage } from '../../src/db/database';
import { openPglite } from '../../src/db/open';
import { accounts, ledgerEntries } from '../../src/db/schema';
import { startTestApp, type TestApp } from '../helpers/app';
import { EMBEDDED, type TestBackend } from '../helpers/backends';

// The embedded database runs in a worker thread (src/db/pglite-worker.ts); svc's thread
// reaches it through the client in src/db/pglite-client.ts.

describe('embedded database worker: statements and transactions', () => {
  let storage: Storage;
  beforeAll(async () => {
    storage = await EMBEDDED.storage();
  });
  afterAll(() => storage.close());

  test('values come back typed as drizzle reads them: Date, number, JSON; a database error keeps its code', async () => {
    const id = await createAccount(storage.db, { creditUsd: '1.5' });
    await storage.db
      .update(accounts)
      .set({ rateLimitOverrides: { a: [1, 'x'] } })
      .where(eq(accounts.id, id));
    const [account] = await storage.db.select().from(accounts).where(eq(accounts.id, id));
    expect(account!.createdAt).toBeInstanceOf(Date);
    expect(account!.rateLimitOverrides).toEqual({ a: [1, 'x'] });
    const [credit] = await storage.db.select().from(ledgerEntries).where(eq(ledgerEntries.accountId, id));
    expect(credit!.amountMicros).toBe(1_500_000);
    expect(credit!.createdAt).toBeInstanceOf(Date);
    const raw = await storage.db.execute(sql`select 9007199254740993::bigint::text as big, 1.25::numeric as n, null::int as z`);
    expect((raw as unknown as { rows: unknown[] }).rows).toEqual([{ big: '9007199254740993', n: '1.25', z: null }]);
    const dup = await storage.db
      .insert(accounts)
      .values({ id })
      .then(() => null)
      .catch((error: Error & { cause?: { code?: string } }) => error);
    expect(dup?.cause?.code).toBe('23505');
  });

  test('a transaction rolled back on the worker leaves nothing; a statement from outside waits for its end', async () => {
    const before = (await storage.db.select().from(accounts)).length;
    let outside: Promise<number> | null = null;
    const failed = await storage.db
      .transaction(async (tx) => {
        await tx.insert(accounts).values({ displayName: 'rolled back' });
        // Sent while the transaction holds the database: answered only after the ROLLBACK.
        outside = storage.db
          .select()
          .from(accounts)
          .then((rows) => rows.length);
        await Bun.sleep(50);
        expect((await tx.select().from(accounts)).length).toBe(before + 1);
        throw new Error('no thanks');
      })
      .catch((error: Error) => error.message);
    expect(failed).toBe('no thanks');
    expect(await outside!).toBe(before);
    expect((await storage.db.select().from(accounts).where(eq(accounts.displayName, 'rolled back'))).length).toBe(0);
  });

  test('a nested transaction (savepoint) rolls back alone; the outer one commits', async () => {
    await storage.db.transaction(async (tx) => {
      await tx.insert(accounts).values({ displayName: 'outer' });
      await tx
        .transaction(async (inner) => {
          await inner.insert(accounts).values({ displayName: 'inner' });
          inner.rollback();
        })
        .catch(() => {});
    });
    const names = (await storage.db.select({ name: accounts.displayName }).from(accounts)).map((r) => r.name);
    expect(names).toContain('outer');
    expect(names).not.toContain('inner');
  });
});

describe('embedded database worker: a worker that dies', () => {
  let dir: string;
  let t: TestApp;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-worker-'));
    const onDisk: TestBackend = { ...EMBEDDED, storage: () => openPglite({ dataDir: join(dir, 'pglite') }) };
    t = await startTestApp({ backend: onDisk });
  }, 60_000);
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const chat = async () => {
    const res = await t.request('/chat/completions', {
      method: 'POST',
      json: { model: 'llama-3.3-70b', messages: [{ role: 'user', content: 'Hello there' }], max_tokens: 20 },
    });
    expect(res.status).toBe(200);
    return res.headers.get('cf-ray')!;
  };
  const ready = () => t.app.handle(new Request('http://localhost/health/ready'));

  test('readiness is 503 until a new worker has opened the directory; settlements queued meanwhile stay queued and are written after', async () => {
    const client = pgliteOf(t.deps.storage.db)!;
    const first = await chat();
    await t.deps.meter.flush();

    client.kill();
    for (let i = 0; i < 100 && client.healthy; i++) await Bun.sleep(10);
    expect(client.healthy).toBe(false);
    const down = await ready();
    expect(down.status).toBe(503);
    expect((await down.json()).checks.database).not.toBe('ok');

    // Served while the database is down (the key is cached, the balance lives in the KV store):
    // its ledger rows cannot be written yet, and are not dropped.
    const second = await chat();
    const flushed = await t.deps.meter.flush().then(
      () => 'written',
      () => 'failed',
    );
    expect(flushed).toBe('failed');
    expect(await (t.deps.meter as unknown as { store: { queued(): Promise<number> } }).store.queued()).toBeGreaterThan(0);

    await client.restarted();
    expect(client.healthy).toBe(true);
    expect((await ready()).status).toBe(200);
    await t.deps.meter.flush();
    const usage = await (await t.request('/billing/usage')).json();
    const ids = new Set((usage.data as { inferenceDetails: { requestId: string } | null }[]).map((e) => e.inferenceDetails?.requestId));
    expect(ids.has(first)).toBe(true);
    expect(ids.has(second)).toBe(true);
  }, 60_000);
});

test('a database from a dump (no directory) is not restarted: readiness stays 503', async () => {
  const t = await startTestApp();
  const client = pgliteOf(t.deps.storage.db)!;
  client.kill();
  for (let i = 0; i < 100 && client.healthy; i++) await Bun.sleep(10);
  await Bun.sleep(200);
  expect((await t.app.handle(new Request('http://localhost/health/ready'))).status).toBe(503);
  await t.close().catch(() => {});
});
