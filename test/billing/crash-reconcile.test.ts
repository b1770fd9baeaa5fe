import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import type { Storage } from '../../src/db/database';
import { balances } from '../../src/db/schema';
import type { KeyValueStore } from '../../src/kv/store';
import { createRedisStore } from '../../src/kv/redis';
import { accountKeys } from '../../src/billing/redis-calls';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { BACKENDS } from '../helpers/backends';
import { backendPair, charges, closeInstance, COST, instance, newAccount, type MeterInstance } from './meter-helpers';

// A settlement that waits for Redis (settleBatchMs 0, and kept reservations) is applied there
// (mirror charged) before the process journals it: a kill -9 in between used to leave the live
// balance below the ledger for good. A deferred one is journaled first and applied a few ms
// later: a kill -9 in between must leave neither the mirror above the ledger nor a hold behind.
let up: FixtureUpstream;
const dirs: string[] = [];
beforeAll(() => {
  up = startUpstream('crash-reconcile');
});
afterAll(async () => {
  await up.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Drops the journal's last settlement, as a crash between Redis applying it and its journal line leaves the directory. */
function loseLastJournalLine(dir: string) {
  const [segment] = readdirSync(dir).filter((n) => n.endsWith('.jsonl'));
  const path = join(dir, segment!);
  const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
  writeFileSync(
    path,
    lines
      .slice(0, -1)
      .map((l) => `${l}\n`)
      .join(''),
  );
  return lines.length;
}

/** The account's USD row of `balances` (what the ledger has written). */
async function usdBalance(storage: Storage, accountId: string) {
  const [row] = await storage.db
    .select()
    .from(balances)
    .where(and(eq(balances.accountId, accountId), eq(balances.currency, 'USD')));
  return row;
}

/** A new account with 1 USD of credit, and two chats of its answered by `crashed`; the account's id. */
async function twoChats(storage: Storage, crashed: MeterInstance): Promise<string> {
  const { accountId, secret } = await newAccount(storage);
  await crashed.meter.credit({ accountId, currency: 'USD', amountMicros: 1_000_000, requestId: `c-${accountId}` });
  for (let i = 0; i < 2; i++) {
    const res = await crashed.chat(secret);
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  }
  return accountId;
}

describe.each(BACKENDS.filter((b) => b.name === 'external'))('a restart on the journal after a kill -9', (backend) => {
  let storage: Storage;
  let kv: KeyValueStore;
  const opened: KeyValueStore[] = [];
  let next: MeterInstance | null = null;

  beforeAll(async () => {
    ({ storage, kv } = await backendPair(backend));
  });
  afterAll(async () => {
    if (next) await closeInstance(next);
    for (const k of opened) await k.close().catch(() => {});
    await kv.close();
    await storage.close();
  });

  const connection = async () => {
    const own = await createRedisStore(process.env.REDIS_URL as string, { prefix: kv.prefix });
    opened.push(own);
    return own;
  };

  test('reconciles the live balance with the ledger: the charge Redis applied but the journal missed is written', async () => {
    const journalDir = mkdtempSync(join(tmpdir(), 'svc-crash-'));
    dirs.push(journalDir);
    const crashedKv = await connection();
    const crashed = await instance({ storage, kv: crashedKv, upstreamUrl: up.url, billing: { journalDir, settleBatchMs: 0 } });
    const accountId = await twoChats(storage, crashed);
    // kill -9: the process is gone with its queue; its journal holds the first charge only.
    expect(loseLastJournalLine(journalDir)).toBe(2);
    await crashedKv.close();

    next = await instance({ storage, kv: await connection(), upstreamUrl: up.url, billing: { journalDir } });
    await next.meter.flush();
    const rows = await charges(storage, accountId);
    expect(new Set(rows.map((r) => r.requestId)).size).toBe(2);
    const db = await usdBalance(storage, accountId);
    expect(db!.amountMicros).toBe(1_000_000 - 2 * COST);
    expect((await next.meter.balances(accountId)).USD).toBe(db!.amountMicros);
    expect(await next.meter.unwrittenCharges(accountId)).toBe(0);
  }, 30_000);

  test('applies deferred settlements a kill -9 took between their journal line and Redis: mirror, hold and ledger agree', async () => {
    const journalDir = mkdtempSync(join(tmpdir(), 'svc-crash-'));
    const leftBehind = mkdtempSync(join(tmpdir(), 'svc-crash-'));
    dirs.push(journalDir, leftBehind);
    const crashed = await instance({ storage, kv: await connection(), upstreamUrl: up.url, billing: { journalDir, settleBatchMs: 1000 } });
    const accountId = await twoChats(storage, crashed);
    // Answered, journaled, not in Redis yet: the holds are still there, the mirror not charged.
    expect(await kv.redis!.send('HLEN', [accountKeys(kv.prefix, accountId).hreq])).toBe(2);
    // kill -9 now: what the directory holds at this moment is what the next start finds.
    for (const name of readdirSync(journalDir))
      if (name !== 'owner.pid') writeFileSync(join(leftBehind, name), readFileSync(join(journalDir, name)));
    expect(
      readFileSync(
        join(
          leftBehind,
          readdirSync(leftBehind).find((n) => n.endsWith('.jsonl'))!,
        ),
        'utf8',
      ),
    ).not.toContain('"landed"');

    next = await instance({ storage, kv: await connection(), upstreamUrl: up.url, billing: { journalDir: leftBehind } });
    await next.meter.flush();
    expect(new Set((await charges(storage, accountId)).map((r) => r.requestId)).size).toBe(2);
    const db = await usdBalance(storage, accountId);
    expect(db!.amountMicros).toBe(1_000_000 - 2 * COST);
    expect((await next.meter.balances(accountId)).USD).toBe(db!.amountMicros);
    expect(await next.meter.liveHolds(accountId)).toBe(0);
    expect(await next.meter.unwrittenCharges(accountId)).toBe(0);
    // The crashed process's own timer lands them again later: the done markers keep them once.
    await crashed.meter.flush();
    expect((await next.meter.balances(accountId)).USD).toBe(1_000_000 - 2 * COST);
    await closeInstance(crashed);
  }, 30_000);
});
