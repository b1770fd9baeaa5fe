import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { pgliteOf } from '../../src/db/embedded-client';
import type { LedgerCharge } from '../../src/billing/ledger-row';
import { copyLedgerBatchPostgres } from '../../src/billing/ledger-copy-postgres';
import { writeLedgerBatch } from '../../src/billing/ledger-writer';
import { postgresOf } from '../../src/db/postgres-copy';
import type { Storage } from '../../src/db/database';
import { balances } from '../../src/db/schema';
import { BACKENDS } from '../helpers/backends';
import { charges, ledgerCharge, newAccount } from './meter-helpers';

// On PGlite a batch goes in by COPY (CSV), elsewhere through json_to_recordset: both must
// store exactly the same charges (one row each, read back as line items), and a replayed
// batch must change nothing on either.
describe.each(BACKENDS)('ledger batch writes on $name', (backend) => {
  let storage: Storage;
  beforeAll(async () => {
    storage = await backend.storage();
  });
  afterAll(() => storage.close());

  const INPUT_LINE = { sku: 'm-llm-input-mtoken', units: '0.000012', pricePerUnitUsd: '0.150000', amount: -2 };
  const charge = (accountId: string, requestId: string, over: Partial<LedgerCharge> = {}): LedgerCharge =>
    ledgerCharge(accountId, requestId, over.lines ?? [INPUT_LINE], {
      promptTokens: 12,
      completionTokens: 50,
      executionMs: 7,
      at: Date.UTC(2026, 10, 23, 12, 0, 0, 123),
      ...over,
    });
  const balanceOf = async (accountId: string, currency: LedgerCharge['currency'] = 'USD') =>
    (
      await storage.db
        .select()
        .from(balances)
        .where(and(eq(balances.accountId, accountId), eq(balances.currency, currency)))
    )[0]?.amountMicros ?? 0;

  test('every field arrives exactly, including quotes, commas and newlines in text; a replayed batch inserts nothing', async () => {
    const { accountId, keyId } = await newAccount(storage);
    const tricky = 'a "quoted", comma\nand a newline; 🦦 and \\ backslash {"json"} [1]';
    const rows = [
      charge(accountId, 'req-1', {
        apiKeyId: keyId,
        modelId: tricky,
        notes: tricky,
        lines: [
          { sku: 'm-llm-input-mtoken', units: '0.000012', pricePerUnitUsd: '0.150000', amount: -2 },
          { sku: tricky, units: '3', pricePerUnitUsd: '0.005000', amount: -15_000 },
        ],
      }),
      charge(accountId, 'req-2', {
        currency: 'DIEM',
        lines: [{ sku: 'm-llm-input-mtoken', units: '0', pricePerUnitUsd: '0.150000', amount: -(2 ** 40) }],
        promptTokens: 0,
        completionTokens: 0,
        executionMs: 0,
      }),
    ];
    if (backend.name === 'embedded') expect(pgliteOf(storage.db)).not.toBeNull();
    // One row per charge, whatever its number of line items.
    expect(await writeLedgerBatch(storage.db, rows)).toBe(2);

    // Read back as line items, in the charge's order.
    const usd = await charges(storage, accountId);
    expect(
      usd.map((r) => ({
        apiKeyId: r.apiKeyId,
        requestId: r.requestId,
        modelId: r.modelId,
        line: r.line,
        sku: r.sku,
        units: r.units,
        price: r.pricePerUnitUsd,
        amount: r.amountMicros,
        notes: r.notes,
      })),
    ).toEqual([
      {
        apiKeyId: keyId,
        requestId: 'req-1',
        modelId: tricky,
        line: 0,
        sku: 'm-llm-input-mtoken',
        units: '0.000012',
        price: '0.150000',
        amount: -2,
        notes: tricky,
      },
      {
        apiKeyId: keyId,
        requestId: 'req-1',
        modelId: tricky,
        line: 1,
        sku: tricky,
        units: '3',
        price: '0.005000',
        amount: -15_000,
        notes: tricky,
      },
    ]);
    for (const r of usd) {
      expect(r).toMatchObject({ kind: 'CHARGE', promptTokens: 12, completionTokens: 50, executionMs: 7 });
      expect(r.createdAt.toISOString()).toBe('2026-11-23T12:00:00.123Z');
    }
    const diem = await charges(storage, accountId, 'DIEM');
    expect(diem.map((r) => ({ apiKeyId: r.apiKeyId, amount: r.amountMicros, notes: r.notes }))).toEqual([
      { apiKeyId: null, amount: -(2 ** 40), notes: null },
    ]);
    expect(await balanceOf(accountId)).toBe(-15_002);
    expect(await balanceOf(accountId, 'DIEM')).toBe(-(2 ** 40));

    // Replayed after a crash between the commit and the queue trim, alone or with new rows.
    expect(await writeLedgerBatch(storage.db, rows)).toBe(0);
    const third = charge(accountId, 'req-3', { lines: [{ sku: 's', units: '1', pricePerUnitUsd: '0.000005', amount: -5 }] });
    expect(await writeLedgerBatch(storage.db, [...rows, third])).toBe(1);
    expect(await charges(storage, accountId)).toHaveLength(3);
    expect(await balanceOf(accountId)).toBe(-15_007);
    expect(await balanceOf(accountId, 'DIEM')).toBe(-(2 ** 40));
  });

  // postgres.js does not settle a COPY the server refuses after its last row (copyCsv hears the
  // refusal elsewhere); before, a COPY went only after a probe of its keys, or waited 5 s.
  test.if(backend.name === 'external')('a COPY of charges already there is refused at once and changes nothing', async () => {
    const { accountId } = await newAccount(storage);
    const client = postgresOf(storage.db)!;
    const rows = [charge(accountId, 'again-1'), charge(accountId, 'again-2')];
    expect(await copyLedgerBatchPostgres(client, rows)).toBe(2);
    const started = performance.now();
    expect(await copyLedgerBatchPostgres(client, [charge(accountId, 'again-3'), rows[1]!])).toBeNull();
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(await charges(storage, accountId)).toHaveLength(2);
    expect(await balanceOf(accountId)).toBe(-4);
    // Every connection of the pool still answers (none is left inside the refused COPY).
    await Promise.all(Array.from({ length: 30 }, (_, i) => writeLedgerBatch(storage.db, [charge(accountId, `after-${i}`)])));
    expect(await charges(storage, accountId)).toHaveLength(32);
  });
});
