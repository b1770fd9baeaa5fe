import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { LedgerOutbox } from '../../src/billing/ledger-outbox';
import type { ChargeLine, LedgerCharge } from '../../src/billing/ledger-row';
import { balances, ledgerEntries } from '../../src/db/schema';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { BACKENDS } from '../helpers/backends';
import { charges, closeInstance, COST, instance, newAccount, openMeterSuite } from './meter-helpers';

// The local journal of the ledger outbox: what a crashed process had charged but not yet written reaches the ledger at the next start.
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'svc-journal-'));
  dirs.push(d);
  return d;
};
let up: FixtureUpstream;
beforeAll(() => {
  up = startUpstream('journal');
});
afterAll(async () => {
  await up.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const line = (amount: number, sku = 'sku, "quoted"\nnewline'): ChargeLine => ({
  sku,
  units: '1',
  pricePerUnitUsd: '0.000001',
  amount: -amount,
});
const charge = (requestId: string, ...lines: ChargeLine[]): LedgerCharge => ({
  accountId: '00000000-0000-4000-8000-000000000001',
  apiKeyId: null,
  requestId,
  currency: 'USD',
  modelId: 'fix',
  lines,
  amount: lines.reduce((sum, l) => sum + l.amount, 0),
  promptTokens: 1,
  completionTokens: 2,
  executionMs: 3,
  at: Date.now(),
});

describe('ledger journal', () => {
  test('settlements pushed and never written are read back by the next outbox on the directory; a torn last line is ignored', async () => {
    const dir = tempDir();
    const crashed = new LedgerOutbox(dir);
    crashed.push(charge('r1', line(5)));
    crashed.push(charge('r2', line(7), line(1, 'extra')));
    const [segment] = readdirSync(dir).filter((n) => n.endsWith('.jsonl'));
    // A settlement journaled by a version that queued one object per line item (an upgrade after a crash).
    const { lines: _, amount: __, ...request } = charge('r3');
    appendFileSync(
      join(dir, segment!),
      JSON.stringify([
        { ...request, ...line(2) },
        { ...request, ...line(3, 'other') },
      ]) + '\n',
    );
    // The process dies in the middle of writing a fourth line: that settlement never returned.
    appendFileSync(join(dir, segment!), '{"accountId":"00');
    const next = new LedgerOutbox(dir);
    expect(next.size).toBe(3);
    const batch = next.takeBatch(100)!;
    expect(batch.charges.map((c) => [c.requestId, c.amount, c.lines.map((l) => [l.sku, l.amount])])).toEqual([
      ['r1', -5, [['sku, "quoted"\nnewline', -5]]],
      [
        'r2',
        -8,
        [
          ['sku, "quoted"\nnewline', -7],
          ['extra', -1],
        ],
      ],
      [
        'r3',
        -5,
        [
          ['sku, "quoted"\nnewline', -2],
          ['other', -3],
        ],
      ],
    ]);
    await batch.ack();
    // Acknowledged and closed: no segment is left to replay.
    next.close();
    expect(readdirSync(dir)).toEqual(['writer-id']);
  });

  test('a directory owned by another live process is refused', async () => {
    const dir = tempDir();
    const other = spawn('sleep', ['5']);
    try {
      writeFileSync(join(dir, 'owner.pid'), String(other.pid));
      expect(() => new LedgerOutbox(dir)).toThrow(/in use by process/);
    } finally {
      other.kill();
    }
  });

  test('a deferred settlement is held back from the ledger until it lands; a start after a crash finds the ones that had not', () => {
    const dir = tempDir();
    const crashed = new LedgerOutbox(dir);
    const intent = { counter: 'kc:k:DAY:0:usd', counterTtlMs: 1000 };
    const landed = crashed.push(charge('d1', line(2)), intent)!;
    crashed.push(charge('d2', line(3)), intent);
    crashed.push(charge('p3', line(4)));
    // Nothing before the first one in flight goes to the ledger, so the queue's order stays.
    expect(crashed.takeBatch(10)).toBeNull();
    crashed.landed([landed]);
    const batch = crashed.takeBatch(10)!;
    expect(batch.charges.map((c) => c.requestId)).toEqual(['d1']);
    // kill -9: d2 was journaled (and answered) but never landed.
    const next = new LedgerOutbox(dir);
    expect(next.size).toBe(3);
    expect(next.unlanded().map((i) => [i.charge.requestId, i.intent])).toEqual([['d2', intent]]);
    expect(next.takeBatch(10)!.charges.map((c) => c.requestId)).toEqual(['d1']);
  });

  test('a landed line stays in the journal while its segment holds settlements not yet written', () => {
    const dir = tempDir();
    const outbox = new LedgerOutbox(dir);
    const first = outbox.push(charge('s1', line(1)), { counter: '', counterTtlMs: 0 })!;
    outbox.push(charge('s2', line(1)));
    outbox.landed([first]);
    const batch = outbox.takeBatch(1)!;
    expect(batch.charges.map((c) => c.requestId)).toEqual(['s1']);
    return batch.ack().then(() => {
      // s2 is still queued in the same segment: the segment and s1's landed line stay.
      const next = new LedgerOutbox(dir);
      expect(next.unlanded()).toEqual([]);
      expect(next.size).toBe(2);
    });
  });

  test('an abandoned batch stays queued and in the journal', async () => {
    const dir = tempDir();
    const outbox = new LedgerOutbox(dir);
    outbox.push(charge('a1', line(1)));
    const batch = outbox.takeBatch(10)!;
    expect(outbox.takeBatch(10)).toBeNull(); // one batch out at a time
    await batch.abandon();
    expect(outbox.size).toBe(1);
    expect(new LedgerOutbox(dir).size).toBe(1);
  });
});

describe.each(BACKENDS)('journaled settlements on $name', (backend) => {
  test('a journal left by an older version whose charge it had committed as per-line rows: not charged again', async () => {
    const suite = await openMeterSuite(backend, { upstreamUrl: up.url });
    try {
      const { accountId } = await newAccount(suite.storage);
      const db = suite.storage.db;
      const balance = async () =>
        Number(
          (
            await db
              .select()
              .from(balances)
              .where(and(eq(balances.accountId, accountId), eq(balances.currency, 'USD')))
          )[0]?.amountMicros ?? 0,
        );
      const old = { ...charge(`upgraded-${accountId}`), accountId, lines: [line(3), line(4, 'output')] };
      // The older version committed the charge as two ledger_entries rows and its balance, then stopped before trimming its journal.
      await db.insert(ledgerEntries).values(
        old.lines.map((l) => ({
          ...old,
          kind: 'CHARGE' as const,
          sku: l.sku,
          units: l.units,
          pricePerUnitUsd: l.pricePerUnitUsd,
          amountMicros: l.amount,
          createdAt: new Date(old.at),
        })),
      );
      await db.insert(balances).values({ accountId, currency: 'USD', amountMicros: -7 });
      const journalDir = tempDir();
      const { lines: _, amount: __, ...request } = old;
      const fresh = { ...charge(`fresh-${accountId}`, line(5)), accountId };
      writeFileSync(
        join(journalDir, 'segment-1.jsonl'),
        `${JSON.stringify(old.lines.map((l) => ({ ...request, ...l })))}\n${JSON.stringify(fresh)}\n`,
      );
      const next = await instance({ storage: suite.storage, kv: suite.kv, upstreamUrl: up.url, billing: { journalDir } });
      await next.meter.flush();
      await closeInstance(next);
      const lines = await charges(suite.storage, accountId);
      expect(lines.map((l) => [l.requestId, l.amountMicros])).toEqual([
        [old.requestId, -3],
        [old.requestId, -4],
        [fresh.requestId, -5],
      ]);
      expect(await balance()).toBe(-12);
      expect(readdirSync(journalDir).filter((n) => n.endsWith('.jsonl'))).toEqual([]);
    } finally {
      await suite.close();
    }
  });

  test('an instance that dies before its ledger write: the next instance on its journal writes the charge, once', async () => {
    const journalDir = tempDir();
    const suite = await openMeterSuite(backend, { upstreamUrl: up.url, billing: { journalDir } });
    try {
      const { accountId, secret } = await newAccount(suite.storage);
      await suite.m.meter.credit({ accountId, currency: 'USD', amountMicros: 1_000_000, requestId: `fund-${accountId}` });
      const res = await suite.m.chat(secret);
      expect(res.status).toBe(200);
      expect(Math.round((await res.json()).cost.usd * 1e6)).toBe(COST);
      // "Crash": the writer never ran (its period is 60 s in these suites). The next start replays the journal.
      expect(await charges(suite.storage, accountId)).toHaveLength(0);
      writeFileSync(join(journalDir, 'owner.pid'), '999999999');
      const next = await instance({ storage: suite.storage, kv: suite.kv, upstreamUrl: up.url, billing: { journalDir } });
      await next.meter.flush();
      const rows = await charges(suite.storage, accountId);
      expect(rows.reduce((n, r) => n - r.amountMicros, 0)).toBe(COST);
      // The crashed instance's own late write (had it survived) is skipped, not doubled.
      await suite.m.meter.flush();
      expect(await charges(suite.storage, accountId)).toHaveLength(rows.length);
      await closeInstance(next);
      expect(existsSync(join(journalDir, 'owner.pid'))).toBe(false);
    } finally {
      await suite.close();
    }
  });
});
