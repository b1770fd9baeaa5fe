/** How often the clock ticks: the resolution of every deadline it keeps. */
const TICK_MS = 50;

/**
 * A clock for Redis command deadlines that counts only the time this process could have read
 * a reply. A plain timer measures the process's own busy time as Redis's: when the event loop
 * is blocked (a burst of CPU-bound requests held it for 15 to 33 s in a loaded test run),
 * the timers run before the sockets are read on the way out, and every command sent before
 * the stretch is past its deadline although its reply is already waiting, so funded requests
 * got 503 from a healthy Redis. Here a tick that comes late advances the clock by at most two
 * ticks, so the stretch counts ~100 ms and the replies are read before the next tick; a Redis
 * that does not answer still runs out of time at the pace of the loop's own ticks.
 */
export class LoopClock {
  private elapsed = 0;
  private last = performance.now();
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly listeners: (() => void)[] = [];

  constructor() {
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref?.();
  }

  /** Milliseconds counted so far (advances at each tick only). */
  now(): number {
    return this.elapsed;
  }

  /** Runs `fn` after each tick has advanced the clock. */
  onTick(fn: () => void): void {
    this.listeners.push(fn);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private tick() {
    const at = performance.now();
    this.elapsed += Math.min(at - this.last, 2 * TICK_MS);
    this.last = at;
    for (const fn of this.listeners) fn();
  }
}

/**
 * Deadlines of commands in flight on one link, on a LoopClock: `within` fails a command that
 * has had `timeoutMs` of the clock's time without an answer (the command itself goes on; its
 * late answer is dropped).
 */
export class CommandDeadlines {
  private readonly clock = new LoopClock();
  private readonly pending = new Set<{ since: number; expire: () => void }>();

  constructor(private readonly timeoutMs: number) {
    this.clock.onTick(() => this.expire());
  }

  /** `work`, or `timedOut()` thrown once it has waited past the deadline. */
  within<T>(work: Promise<T>, timedOut: () => Error): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry = { since: this.clock.now(), expire: () => reject(timedOut()) };
      this.pending.add(entry);
      work.then(
        (value) => {
          this.pending.delete(entry);
          resolve(value);
        },
        (error) => {
          this.pending.delete(entry);
          reject(error);
        },
      );
    });
  }

  stop(): void {
    this.clock.stop();
  }

  private expire() {
    const now = this.clock.now();
    for (const entry of this.pending)
      if (now - entry.since > this.timeoutMs) {
        this.pending.delete(entry);
        entry.expire();
      }
  }
}
