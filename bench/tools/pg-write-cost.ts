/**
 * `bun bench/tools/pg-write-cost.ts [--rows 20000] [--batch 300] [--rounds 3]`: what svc's batched
 * writes cost Postgres per row, on a fresh database of DATABASE_URL's server: the CPU of the
 * Postgres backends serving it (/proc, so the server must run on this machine) and this
 * process's, per ledger row and per request-log row, written by COPY (what svc does) and by
 * the `json_to_recordset` statement (its fallback, and what it did before), in batches of
 * `--batch` (about the ledger writer's 300 ms at 1,000 requests a second). The ways run
 * interleaved, round after round; prints each round and the medians.
 */
import { createAccount } from '../../src/auth/bootstrap';
import { copyLedgerBatchPostgres } from '../../src/billing/ledger-copy-postgres';
import { insertLedgerBatch } from '../../src/billing/ledger-writer';
import { openPostgres } from '../../src/db/open';
import { postgresOf } from '../../src/db/postgres-copy';
import { copyRequestLogBatchPostgres } from '../../src/request-log/copy-postgres';
import { insertRecords } from '../../src/request-log/writer';
import { postgresCpu } from '../lib/backing-cpu';
import { benchCharge, ownCpuMicros } from '../lib/ledger-charge';
import { benchRecord } from '../lib/request-record';
import { freshDatabase } from '../servers/svc';

const argv = Bun.argv.slice(2);
const opt = (name: string, dflt: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1]! : dflt);
const rows = Number(opt('--rows', '20000'));
const batch = Number(opt('--batch', '300'));
const rounds = Number(opt('--rounds', '3'));

const fresh = await freshDatabase(process.env.DATABASE_URL!);
const storage = await openPostgres(fresh.url);
const database = new URL(fresh.url).pathname.slice(1);
const client = postgresOf(storage.db)!;
const accountId = await createAccount(storage.db, {});

let n = 0;
const ways: Record<string, (count: number) => Promise<void>> = {
  'ledger COPY': async (count) => {
    const charges = Array.from({ length: count }, () => benchCharge(accountId, null, `c-${++n}`));
    if ((await copyLedgerBatchPostgres(client, charges)) === null) throw new Error('ledger COPY failed');
  },
  'ledger json_to_recordset': async (count) => {
    await insertLedgerBatch(
      storage.db,
      Array.from({ length: count }, () => benchCharge(accountId, null, `c-${++n}`)),
      false,
    );
  },
  'request log COPY': async (count) => {
    const at = Date.now();
    if (
      !(await copyRequestLogBatchPostgres(
        client,
        Array.from({ length: count }, () => benchRecord(accountId, `r-${++n}`, at)),
      ))
    )
      throw new Error('request log COPY failed');
  },
  'request log json_to_recordset': async (count) => {
    const at = Date.now();
    await insertRecords(
      storage.db,
      Array.from({ length: count }, () => benchRecord(accountId, `r-${++n}`, at)),
    );
  },
};

const figures = new Map<string, { pg: number[]; own: number[] }>();
try {
  for (const write of Object.values(ways)) await write(batch); // connections open, plans cached
  for (let round = 0; round < rounds; round++)
    for (const [name, write] of Object.entries(ways)) {
      const pg0 = postgresCpu(database);
      const own0 = ownCpuMicros();
      for (let done = 0; done < rows; done += batch) await write(Math.min(batch, rows - done));
      const pg = (postgresCpu(database) - pg0) / rows;
      const own = (ownCpuMicros() - own0) / rows;
      const f = figures.get(name) ?? { pg: [], own: [] };
      f.pg.push(pg);
      f.own.push(own);
      figures.set(name, f);
      console.log(`round ${round + 1} ${name.padEnd(30)} Postgres ${pg.toFixed(1)} µs/row, this process ${own.toFixed(1)} µs/row`);
    }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const [name, f] of figures)
    console.log(`median ${name.padEnd(30)} Postgres ${median(f.pg).toFixed(1)} µs/row, this process ${median(f.own).toFixed(1)} µs/row`);
} finally {
  await storage.close();
  await fresh.drop();
}
process.exit(0);
