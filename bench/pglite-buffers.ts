/**
 * `bun bench/pglite-buffers.ts`: what PGlite's `shared_buffers` costs the ledger writer on a
 * large ledger. Two embedded databases in this one process, alike but for `shared_buffers`
 * (default 32 MB against 16 MB; --mb A,B), each filled with --rows ledger rows (default
 * 250,000), then batches of 1,000 rows COPYed in turn into each (A B A B ..., --rounds 30), the
 * way the ledger writer does (src/billing/ledger-copy.ts), the rows spread over --accounts
 * accounts (default 1,000). Prints CPU time per row (min and median) for each.
 */
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyLedgerBatch } from '../src/billing/ledger-copy';
import type { LedgerCharge } from '../src/billing/ledger-row';
import { MIGRATIONS_FOLDER } from '../src/db/open';

const argv = Bun.argv.slice(2);
const arg = (name: string, dflt: string) => (argv.includes(name) ? (argv[argv.indexOf(name) + 1] as string) : dflt);
const sizes = arg('--mb', '32,16').split(',').map(Number);
const fill = Number(arg('--rows', '250000'));
const rounds = Number(arg('--rounds', '30'));
const BATCH = 1000;

const accounts = Array.from({ length: Number(arg('--accounts', '1000')) }, () => crypto.randomUUID());
let serial = 0;
function rows(n: number): LedgerCharge[] {
  return Array.from({ length: n }, () => ({
    accountId: accounts[serial % accounts.length] as string,
    apiKeyId: null,
    requestId: `req-${serial++}`,
    currency: 'USD' as const,
    modelId: 'bench-model',
    lines: [{ sku: 'chat_input', units: '123', pricePerUnitUsd: '0.000001', amount: -123 }],
    amount: -123,
    promptTokens: 100,
    completionTokens: 23,
    executionMs: 42,
    at: Date.now(),
  }));
}

const dir = mkdtempSync(join(tmpdir(), 'svc-pglite-buffers-'));
const dbs: { mb: number; pg: PGlite; perRowUs: number[] }[] = [];
for (const mb of sizes) {
  const pg = new PGlite({ dataDir: join(dir, String(mb)), postgresqlconf: ['full_page_writes=off', `shared_buffers=${mb}MB`] });
  await pg.waitReady;
  await migrate(drizzle(pg), { migrationsFolder: MIGRATIONS_FOLDER });
  await pg.query(`insert into accounts (id) select unnest($1::uuid[])`, [accounts]);
  for (let done = 0; done < fill; done += 5000) await copyLedgerBatch(pg, rows(Math.min(5000, fill - done)));
  await pg.query('checkpoint');
  dbs.push({ mb, pg, perRowUs: [] });
  process.stdout.write(`shared_buffers=${mb}MB: ${fill} rows in\n`);
}
for (let round = 0; round < rounds; round++) {
  for (const db of dbs) {
    const batch = rows(BATCH);
    const cpu0 = process.cpuUsage();
    if ((await copyLedgerBatch(db.pg, batch)) !== BATCH) throw new Error('batch refused');
    const cpu = process.cpuUsage(cpu0);
    db.perRowUs.push((cpu.user + cpu.system) / BATCH);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
for (const db of dbs) {
  const count = (await db.pg.query<{ n: number }>('select count(*)::int as n from ledger_entries')).rows[0]?.n;
  process.stdout.write(
    `shared_buffers=${db.mb}MB (${count} rows): CPU per row min ${Math.min(...db.perRowUs).toFixed(1)} µs, ` +
      `median ${median(db.perRowUs).toFixed(1)} µs over ${rounds} batches of ${BATCH}\n`,
  );
  await db.pg.close();
}
rmSync(dir, { recursive: true, force: true });
