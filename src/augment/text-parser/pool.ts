import type { DocumentKind } from './detect';
import type { ZipLimits } from './zip-parts';

/** A document to parse in a worker, with the decompression and table limits the readers apply. */
export interface ParseTask {
  id: number;
  bytes: Uint8Array;
  kind: Exclude<DocumentKind, 'text'>;
  limits: ZipLimits & { maxTableCells: number };
}

/** A worker's answer: the text, or what the parser said of its failure. */
export type ParseReply = { id: number; ok: true; text: string } | { id: number; ok: false; code?: string; name?: string };

/** Why a parse was stopped: past its time, past its memory budget (its worker was terminated), or the client left. */
export type StopReason = 'timeout' | 'memory' | 'cancelled';

/** The parse did not finish: its worker was terminated (time or memory) or the client left. */
export class ParseStopped extends Error {
  override name = 'ParseStopped';
  constructor(readonly reason: StopReason) {
    super(`document parse stopped: ${reason}`);
  }
}

/** Every worker is busy and the queue is full (or the wait passed the time limit): try again later. */
export class ParserBusy extends Error {
  override name = 'ParserBusy';
  constructor(readonly retryAfterSeconds: number) {
    super('document parsers busy');
  }
}

/** The pool's bounds: workers at once, documents waiting, idle lifetime, memory one parse may add. */
export interface PoolOptions {
  size: number;
  queueSize: number;
  idleMs: number;
  memoryBytes: number;
}

/** A parse in a worker, as the memory watchdog sees it. */
interface Running {
  baselineRss: number;
  stop(reason: StopReason): void;
}

const WORKER_URL = new URL('./worker.ts', import.meta.url).href;
/** How often the process's memory is read while a parse runs. */
const WATCH_MS = 50;
/** What a refused client is told to wait: about one short parse. */
const RETRY_AFTER_SECONDS = 2;

/**
 * Parser workers, at most `size` at once and `queueSize` documents waiting for one (more are
 * refused with ParserBusy, as is a wait longer than the parse's own time limit), each parsing
 * one document at a time. A worker past the time limit, whose parse grew the process's memory
 * past `memoryBytes`, or whose client left, is terminated (its memory goes with it) and a fresh
 * one takes its place; an idle worker exits after `idleMs`, so an idle svc holds no parser
 * memory. Workers never keep the process alive.
 */
export class ParserPool {
  private readonly idle: Worker[] = [];
  private readonly idleTimers = new Map<Worker, ReturnType<typeof setTimeout>>();
  private readonly waiting: (() => void)[] = [];
  private readonly running = new Set<Running>();
  private busy = 0;
  private nextId = 0;
  private watch: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly o: PoolOptions) {}

  /** A worker slot, waiting in the queue for at most `timeoutMs`; ParserBusy when the queue is full or the wait too long. */
  private async acquire(timeoutMs: number, signal: AbortSignal): Promise<Worker> {
    if (this.busy >= this.o.size) {
      if (this.waiting.length >= this.o.queueSize) throw new ParserBusy(RETRY_AFTER_SECONDS);
      await new Promise<void>((resolve, reject) => {
        const leave = (error: Error) => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          const i = this.waiting.indexOf(admit);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(error);
        };
        const admit = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        const timer = setTimeout(() => leave(new ParserBusy(RETRY_AFTER_SECONDS)), timeoutMs);
        const onAbort = () => leave(new ParseStopped('cancelled'));
        signal.addEventListener('abort', onAbort, { once: true });
        this.waiting.push(admit);
      });
    }
    this.busy++;
    const worker = this.idle.pop();
    if (worker) {
      clearTimeout(this.idleTimers.get(worker));
      this.idleTimers.delete(worker);
      return worker;
    }
    // ref: false: a worker never keeps the process alive.
    return new Worker(WORKER_URL, { smol: true, ref: false });
  }

  private release(worker: Worker | null): void {
    this.busy--;
    if (worker) {
      this.idle.push(worker);
      const timer = setTimeout(() => this.retire(worker), this.o.idleMs);
      timer.unref?.();
      this.idleTimers.set(worker, timer);
    }
    // The slot passes straight to the next in the queue.
    this.waiting.shift()?.();
  }

  private retire(worker: Worker): void {
    const i = this.idle.indexOf(worker);
    if (i >= 0) this.idle.splice(i, 1);
    this.idleTimers.delete(worker);
    worker.terminate();
  }

  /**
   * Workers share the process, so their memory is read as the process's: when it has grown
   * past `memoryBytes` per running parse since the earliest of them began, the oldest is stopped.
   */
  private watchMemory(): void {
    if (this.running.size === 0) {
      if (this.watch) clearInterval(this.watch);
      this.watch = null;
      return;
    }
    const rss = process.memoryUsage.rss();
    const [oldest] = this.running;
    if (oldest && rss - oldest.baselineRss > this.o.memoryBytes * this.running.size) oldest.stop('memory');
  }

  /** Parses in a worker; rejects with ParseStopped past `timeoutMs`, past the memory budget or when `signal` aborts (the worker is terminated), or with ParserBusy. */
  async parse(task: Omit<ParseTask, 'id'>, timeoutMs: number, signal: AbortSignal): Promise<ParseReply> {
    const worker = await this.acquire(timeoutMs, signal);
    const id = ++this.nextId;
    let healthy = true;
    let entry: Running | null = null;
    try {
      return await new Promise<ParseReply>((resolve, reject) => {
        const stop = (reason: StopReason) => {
          done();
          healthy = false;
          worker.terminate();
          reject(new ParseStopped(reason));
        };
        const timer = setTimeout(() => stop('timeout'), timeoutMs);
        const onAbort = () => stop('cancelled');
        signal.addEventListener('abort', onAbort, { once: true });
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          if (entry) this.running.delete(entry);
        };
        worker.onmessage = (event: MessageEvent<ParseReply>) => {
          if (event.data.id !== id) return;
          done();
          resolve(event.data);
        };
        worker.onerror = (event) => {
          done();
          healthy = false;
          worker.terminate();
          reject(new Error(`parser worker failed: ${event.message}`));
        };
        if (signal.aborted) return stop('cancelled');
        entry = { baselineRss: process.memoryUsage.rss(), stop };
        this.running.add(entry);
        this.watch ??= setInterval(() => this.watchMemory(), WATCH_MS);
        this.watch.unref?.();
        worker.postMessage({ ...task, id } satisfies ParseTask);
      });
    } finally {
      this.release(healthy ? worker : null);
    }
  }

  /** Terminates every idle worker (shutdown, tests). */
  close(): void {
    for (const worker of [...this.idle]) {
      clearTimeout(this.idleTimers.get(worker));
      this.retire(worker);
    }
  }
}
