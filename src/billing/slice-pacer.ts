/**
 * Sizes the slices of a long job that runs on svc's own thread (the embedded database is
 * WASM: a statement holds the thread until it is done), from the time per item measured on
 * the slices before, and yields to the event loop between them.
 *
 * A slice holds the thread about `budgetMs`, or half as long as the event loop's last turn
 * (requests served between two slices) when that is longer, up to 10 budgets: the job then
 * gets about a third of a saturated thread and keeps up with the requests that feed it, while
 * a request waits at most one slice per turn. With a fixed budget, a saturated svc served
 * requests faster than the ledger could follow: 17,000 settlements queued after 10 s at
 * 64 connections. A fixed count cannot do either: the same 1,000 ledger rows took 10 or
 * 40 ms depending on the machine's load.
 */
export class SlicePacer {
  /** Measured ms per item, smoothed; null until the first slice. */
  private msPerItem: number | null = null;
  /** How long the last pause waited for the event loop. */
  private lastTurnMs = 0;

  constructor(
    private readonly budgetMs: number,
    /** Fewest items a slice takes, so the per-statement cost stays small beside the items'. */
    private readonly minItems = 32,
  ) {}

  /** How many of `left` items the next slice takes. */
  next(left: number): number {
    if (this.msPerItem === null) return Math.min(left, this.minItems);
    const budget = Math.min(Math.max(this.budgetMs, this.lastTurnMs * TURN_SHARE), this.budgetMs * MAX_BUDGETS);
    return Math.min(left, Math.max(this.minItems, Math.floor(budget / this.msPerItem)));
  }

  /** Records that a slice of `items` held the thread `ms`. */
  record(items: number, ms: number) {
    if (items <= 0) return;
    const sample = ms / items;
    // A slow slice (the machine busy, a checkpoint) moves the estimate half-way, a fast one a quarter of the way:
    // erring towards smaller slices costs a little CPU, towards larger ones a stall.
    if (this.msPerItem === null) this.msPerItem = sample;
    else this.msPerItem += (sample - this.msPerItem) * (sample > this.msPerItem ? 0.5 : 0.25);
  }

  /** Lets the event loop serve what is waiting (sockets, timers), and notes how long that took. */
  async pause(): Promise<void> {
    const started = performance.now();
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.lastTurnMs = performance.now() - started;
  }
}

/** A slice may last this share of the event loop's last turn... */
const TURN_SHARE = 0.5;
/** ...up to this many budgets. */
const MAX_BUDGETS = 10;
