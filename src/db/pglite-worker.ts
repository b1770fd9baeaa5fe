/**
 * The embedded database's own thread: it owns the PGlite instance (its WASM engine and
 * heap), applies the migrations and runs every statement svc sends it, ledger batches
 * included, so a batch costs svc's serving thread one message instead of the insert. The
 * protocol is in pglite-protocol.ts; the client on svc's side is pglite-client.ts.
 */
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { copyLedgerBatch } from '../billing/ledger-copy';
import { serializeError, type WorkerReply, type WorkerRequest } from './pglite-protocol';

declare const self: Worker;

/** The databases this worker holds, by the id the client gave at `open`. */
const databases = new Map<number, PGlite>();
let nextTx = 1;
/** Open transactions: the PGlite transaction and how to end it. */
const transactions = new Map<number, { tx: Transaction; end: (commit: boolean) => void; done: Promise<unknown> }>();

const identity = (v: string) => v;
const parsersCache = new Map<string, Record<number, (v: string) => string>>();
function parsersFor(oids: number[] | undefined) {
  if (!oids || oids.length === 0) return undefined;
  const key = oids.join(',');
  let parsers = parsersCache.get(key);
  if (!parsers) parsersCache.set(key, (parsers = Object.fromEntries(oids.map((o) => [o, identity]))));
  return parsers;
}

function database(db: number): PGlite {
  const pg = databases.get(db);
  if (!pg) throw new Error(`embedded database: database ${db} is not open`);
  return pg;
}

function target(db: number, tx: number) {
  if (tx === 0) return database(db);
  const open = transactions.get(tx);
  if (!open) throw new Error(`embedded database: transaction ${tx} is not open`);
  return open.tx;
}

/** Starts a transaction; resolves with its id once BEGIN ran (PGlite holds its lock until `end`). */
function begin(pg: PGlite): Promise<number> {
  const id = nextTx++;
  return new Promise((resolve, reject) => {
    const done = pg
      .transaction(
        (tx) =>
          new Promise<void>((finish, abort) => {
            transactions.set(id, { tx, end: (commit) => (commit ? finish() : abort(new Error('rollback'))), done });
            resolve(id);
          }),
      )
      .finally(() => transactions.delete(id));
    // A BEGIN that failed never registered: report it to the caller.
    done.catch((error) => {
      if (!transactions.has(id)) reject(error);
    });
  });
}

async function end(id: number, commit: boolean) {
  const open = transactions.get(id);
  if (!open) throw new Error(`embedded database: transaction ${id} is not open`);
  open.end(commit);
  try {
    await open.done;
  } catch (error) {
    if (commit) throw error;
  }
}

async function open(m: Extract<WorkerRequest, { t: 'open' }>) {
  const pg = new PGlite({
    dataDir: m.dataDir,
    loadDataDir: m.load ? new Blob([m.load]) : undefined,
    postgresqlconf: m.settings,
    pgliteWasmModule: m.wasm.pglite,
    initdbWasmModule: m.wasm.initdb,
  });
  await pg.waitReady;
  await migrate(drizzle(pg), { migrationsFolder: m.migrationsFolder });
  databases.set(m.db, pg);
  return null;
}

async function handle(m: WorkerRequest): Promise<unknown> {
  switch (m.t) {
    case 'open':
      return open(m);
    case 'query': {
      const r = await target(m.db, m.tx).query(m.sql, m.params, { rowMode: m.rowMode, parsers: parsersFor(m.identity) });
      return { rows: r.rows, fields: r.fields, affectedRows: r.affectedRows };
    }
    case 'exec':
      return (await target(m.db, m.tx).exec(m.sql)).map((r) => ({ rows: r.rows, fields: r.fields, affectedRows: r.affectedRows }));
    case 'begin':
      return begin(database(m.db));
    case 'end':
      return end(m.tx, m.commit);
    case 'ledger':
      return copyLedgerBatch(database(m.db), m.rows);
    case 'dump':
      return (await database(m.db).dumpDataDir('none')).arrayBuffer();
    case 'close':
      await databases.get(m.db)?.close();
      databases.delete(m.db);
      return null;
  }
}

self.onmessage = (event: MessageEvent<WorkerRequest>) => {
  const m = event.data;
  handle(m).then(
    (value) => self.postMessage({ id: m.id, ok: true, value } satisfies WorkerReply),
    (error) => self.postMessage({ id: m.id, ok: false, error: serializeError(error) } satisfies WorkerReply),
  );
};
