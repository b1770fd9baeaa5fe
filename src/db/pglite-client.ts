import type { LedgerRow } from '../billing/ledger-row';
import type { Logger } from '../log';
import { deserializeError, type WorkerReply, type WorkerRequest } from './pglite-protocol';

type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void };
type Request = WorkerRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;
type QueryOptions = { rowMode?: 'array' | 'object'; parsers?: Record<number, unknown> };
type Results = { rows: unknown[]; fields: { name: string; dataTypeID: number }[]; affectedRows?: number };

/** How to open the database in a worker: a directory, or a dump (tests clone a migrated template). */
export interface WorkerOpen {
  dataDir?: string;
  load?: Blob;
  settings: string[];
  migrationsFolder: string;
}

/** Raised to callers whose statement was in flight when the worker died. */
export class WorkerStoppedError extends Error {
  constructor(why: string) {
    super(`embedded database worker stopped (${why})`);
  }
}

const WORKER_URL = new URL('./pglite-worker.ts', import.meta.url);
/** Bun's Worker has ref()/unref() (the DOM typing does not say so). */
type RefWorker = Worker & { ref(): void; unref(): void };

/**
 * One PGlite worker thread and its request/answer bookkeeping. The worker is referenced
 * (keeps the process alive) only while a request is out, so an idle open database never
 * holds the process, and a script's last query is never cut short.
 */
class WorkerLink {
  readonly worker = new Worker(WORKER_URL) as RefWorker;
  private pending = new Map<number, Pending>();
  private nextId = 1;
  /** Set once the worker ended: later requests fail at once. */
  stopped: string | null = null;
  onStop: (why: string) => void = () => {};

  constructor() {
    this.worker.unref();
    this.worker.addEventListener('message', (event: MessageEvent<WorkerReply>) => this.answer(event.data));
    // An uncaught error in the worker: end it for sure before a new one opens the same directory.
    this.worker.addEventListener('error', (event) => {
      this.stop(`error: ${(event as ErrorEvent).message ?? 'unknown'}`);
      this.worker.terminate();
    });
    this.worker.addEventListener('close', () => this.stop('exited'));
  }

  call<T>(request: Request, transfer?: Transferable[]): Promise<T> {
    if (this.stopped) return Promise.reject(new WorkerStoppedError(this.stopped));
    const id = this.nextId++;
    if (this.pending.size === 0) this.worker.ref();
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ ...request, id }, transfer ?? []);
    });
  }

  private answer(reply: WorkerReply) {
    const p = this.pending.get(reply.id);
    if (!p) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if (reply.ok) p.resolve(reply.value);
    else p.reject(deserializeError(reply.error));
  }

  stop(why: string) {
    if (this.stopped) return;
    this.stopped = why;
    const error = new WorkerStoppedError(why);
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
    this.worker.unref();
    this.onStop(why);
  }

  terminate() {
    this.stop('terminated');
    this.worker.terminate();
  }
}

let compiled: Promise<{ pglite: WebAssembly.Module; initdb: WebAssembly.Module }> | null = null;

/** PGlite's two WASM modules, compiled once per process: a compiled module is shared with every worker it is posted to. */
function wasmModules() {
  compiled ??= (async () => {
    const dist = import.meta.resolve('@electric-sql/pglite');
    const compile = async (name: string) => WebAssembly.compile(await Bun.file(new URL(name, dist)).arrayBuffer());
    const [pglite, initdb] = await Promise.all([compile('./pglite.wasm'), compile('./initdb.wasm')]);
    return { pglite, initdb };
  })();
  return compiled;
}

/** A database open in a worker: the link to the worker and the database's id there. */
interface Opened {
  link: WorkerLink;
  db: number;
  /** The worker is this database's alone (it ends with it). */
  dedicated: boolean;
}

/** The worker that databases without a directory share (tests open dozens from a dump; one thread for all, as before). */
let shared: WorkerLink | null = null;
let nextDb = 1;

/**
 * Opens the database in a worker (migrations applied); rejects with the worker's error. A
 * directory gets a worker of its own; a database from a dump or in memory joins the shared one.
 */
async function startDatabase(open: WorkerOpen): Promise<Opened> {
  const dedicated = Boolean(open.dataDir);
  const link = dedicated ? new WorkerLink() : shared && !shared.stopped ? shared : (shared = new WorkerLink());
  const db = nextDb++;
  try {
    const load = open.load ? await open.load.arrayBuffer() : undefined;
    const wasm = await wasmModules();
    await link.call(
      { t: 'open', db, dataDir: open.dataDir, load, settings: open.settings, migrationsFolder: open.migrationsFolder, wasm },
      load ? [load] : [],
    );
    return { link, db, dedicated };
  } catch (error) {
    if (dedicated) link.terminate();
    throw error;
  }
}

/**
 * Creates and migrates a database directory in a worker that then exits: initdb and the
 * first migrations take several hundred MB of WASM heap, which PGlite never gives back; a
 * thread that ends takes its whole heap with it.
 */
export async function prepareInWorker(open: WorkerOpen): Promise<void> {
  const { link, db } = await startDatabase(open);
  await link.call({ t: 'close', db });
  link.terminate();
}

/**
 * A PGlite-shaped client (query, exec, transaction) that drizzle's pglite driver drives,
 * forwarding every statement to the worker that owns the database. A transaction holds the
 * worker's database until it commits or rolls back (PGlite is one connection: statements
 * from outside the transaction wait, as they did in-process). When the worker dies, the
 * statements in flight fail, and a worker on a data directory is started again (the
 * database recovers from its WAL); until it is back every statement fails, so readiness
 * reports the database down. A dump-backed database (tests) is not restarted.
 */
export class PgliteWorkerClient {
  private link: WorkerLink;
  private db: number;
  private dedicated: boolean;
  private restarting: Promise<void> | null = null;
  private closed = false;

  private constructor(
    opened: Opened,
    private readonly open: WorkerOpen,
    private readonly log?: Logger,
  ) {
    this.link = opened.link;
    this.db = opened.db;
    this.dedicated = opened.dedicated;
    this.watch(opened.link);
  }

  static async start(open: WorkerOpen, log?: Logger): Promise<PgliteWorkerClient> {
    return new PgliteWorkerClient(await startDatabase(open), open, log);
  }

  /** The worker is up (not dead nor restarting). */
  get healthy(): boolean {
    return !this.link.stopped;
  }

  private watch(link: WorkerLink) {
    link.onStop = (why) => {
      if (this.closed || link !== this.link) return;
      this.log?.error('database: embedded database worker stopped', { why });
      if (this.open.dataDir) void this.restart();
    };
  }

  /** Starts a new worker on the same directory; retried every second until it opens or the client closes. */
  private restart(): Promise<void> {
    this.restarting ??= (async () => {
      while (!this.closed) {
        try {
          const opened = await startDatabase(this.open);
          if (this.closed) return opened.link.terminate();
          this.link = opened.link;
          this.db = opened.db;
          this.watch(opened.link);
          this.log?.info('database: embedded database worker restarted');
          return;
        } catch (error) {
          this.log?.error('database: embedded database worker failed to start, retrying', { error: String(error) });
          await Bun.sleep(1000);
        }
      }
    })().finally(() => (this.restarting = null));
    return this.restarting;
  }

  query(sql: string, params: unknown[] = [], options: QueryOptions = {}): Promise<Results> {
    return send(this.link, this.db, 0, sql, params, options);
  }

  exec(sql: string): Promise<Results[]> {
    return this.link.call({ t: 'exec', db: this.db, tx: 0, sql });
  }

  async transaction<T>(callback: (tx: TransactionClient) => Promise<T>): Promise<T> {
    const { link, db } = this;
    const id = await link.call<number>({ t: 'begin', db });
    const tx: TransactionClient = {
      query: (sql, params = [], options = {}) => send(link, db, id, sql, params, options),
      exec: (sql) => link.call({ t: 'exec', db, tx: id, sql }),
      rollback: async () => {
        throw new Error('rollback');
      },
    };
    let result: T;
    try {
      result = await callback(tx);
    } catch (error) {
      await link.call({ t: 'end', db, tx: id, commit: false }).catch(() => {});
      throw error;
    }
    await link.call({ t: 'end', db, tx: id, commit: true });
    return result;
  }

  /** Writes a ledger batch by COPY in the worker: the rows, or null for a replayed batch (ledger-copy.ts). */
  copyLedger(rows: LedgerRow[]): Promise<number | null> {
    return this.link.call({ t: 'ledger', db: this.db, rows });
  }

  /** The whole data directory as a tarball (tests clone a migrated template from it). */
  async dumpDataDir(_compression?: 'none'): Promise<Blob> {
    return new Blob([await this.link.call<ArrayBuffer>({ t: 'dump', db: this.db })]);
  }

  /** Ends the worker as a crash would (tests; a shared worker takes its other databases with it). */
  kill() {
    this.link.worker.terminate();
  }

  /** Waits for a restart in progress (tests). */
  async restarted(): Promise<void> {
    await this.restarting;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.restarting;
    const link = this.link;
    if (!link.stopped) await link.call({ t: 'close', db: this.db }).catch(() => {});
    if (this.dedicated) link.terminate();
  }
}

/** A statement to the worker; drizzle's parsers (identity functions for dates and intervals) travel as their type oids. */
function send(link: WorkerLink, db: number, tx: number, sql: string, params: unknown[], options: QueryOptions): Promise<Results> {
  const identity = options.parsers ? Object.keys(options.parsers).map(Number) : undefined;
  return link.call({ t: 'query', db, tx, sql, params, rowMode: options.rowMode, identity });
}

/** The client a transaction callback gets: statements run inside that transaction. */
export interface TransactionClient {
  query(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results>;
  exec(sql: string): Promise<Results[]>;
  rollback(): Promise<void>;
}
