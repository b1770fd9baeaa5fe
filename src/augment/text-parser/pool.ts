import type { DocumentKind } from './detect';

/** A document to parse in a worker, with the zip and table limits the OOXML reader applies. */
export interface ParseTask {
  id: number;
  bytes: Uint8Array;
  kind: Exclude<DocumentKind, 'text'>;
  limits: { maxUncompressedBytes: number; maxZipEntries: number; maxTableCells: number };
}

/** A worker's answer: the text, or what the parser said of its failure. */
export type ParseReply = { id: number; ok: true; text: string } | { id: number; ok: false; code?: string; name?: string };

/** The worker did not answer within the time limit (it was terminated), or the client left. */
export class ParseStopped extends Error {
  override name = 'ParseStopped';
  constructor(readonly timedOut: boolean) {
    super(timedOut ? 'document parse timed out' : 'document parse cancelled');
  }
}

const WORKER_URL = new URL('./worker.ts', import.meta.url).href;

/**
 * Parser workers, at most `size` at once (further documents wait for one), each parsing one
 * document at a time. A worker past the time limit, or whose client left, is terminated and
 * a fresh one takes its place; an idle worker exits after `idleMs`, so an idle svc holds no
 * parser memory. Workers never keep the process alive.
 */
export class ParserPool {
  private readonly idle: Worker[] = [];
  private readonly idleTimers = new Map<Worker, ReturnType<typeof setTimeout>>();
  private readonly waiting: (() => void)[] = [];
  private running = 0;
  private nextId = 0;

  constructor(private readonly o: { size: number; idleMs: number }) {}

  private async acquire(): Promise<Worker> {
    while (this.running >= this.o.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
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
    this.running--;
    if (worker) {
      this.idle.push(worker);
      const timer = setTimeout(() => this.retire(worker), this.o.idleMs);
      timer.unref?.();
      this.idleTimers.set(worker, timer);
    }
    this.waiting.shift()?.();
  }

  private retire(worker: Worker): void {
    const i = this.idle.indexOf(worker);
    if (i >= 0) this.idle.splice(i, 1);
    this.idleTimers.delete(worker);
    worker.terminate();
  }

  /** Parses in a worker; rejects with ParseStopped after `timeoutMs` or when `signal` aborts (the worker is terminated). */
  async parse(task: Omit<ParseTask, 'id'>, timeoutMs: number, signal: AbortSignal): Promise<ParseReply> {
    const worker = await this.acquire();
    const id = ++this.nextId;
    let healthy = true;
    try {
      return await new Promise<ParseReply>((resolve, reject) => {
        const stop = (timedOut: boolean) => {
          healthy = false;
          worker.terminate();
          reject(new ParseStopped(timedOut));
        };
        const timer = setTimeout(() => stop(true), timeoutMs);
        const onAbort = () => stop(false);
        signal.addEventListener('abort', onAbort, { once: true });
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
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
        if (signal.aborted) return stop(false);
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
