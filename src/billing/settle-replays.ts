import type { RedisLink } from '../kv/redis-link';
import { KvUnavailableError } from '../kv/unavailable';
import type { SettleInput } from './store';

/** Most settlements and releases kept for replay; past it the oldest go (the ledger has their rows anyway). */
const MAX_REPLAYS = 100_000;
const RETRY_MS = 1_000;

type Replay = { kind: 'settle'; input: SettleInput } | { kind: 'release'; accountId: string; requestId: string; ttlMs: number };

/**
 * Settlements and releases that could not reach Redis, replayed in order once it answers
 * again (on reconnection, and every second while any wait), so the live mirror, the key
 * counters and the holds catch up with what the ledger already has. A settlement replays
 * with `onlyIfHeld`: if its hold is gone, Redis lost its data and the mirror is rebuilt
 * from the database instead.
 */
export class SettleReplays {
  private queue: Replay[] = [];
  private timer: ReturnType<typeof setInterval> | null = null;
  private running = false;

  constructor(
    redis: RedisLink,
    private readonly scripts: {
      settle(input: SettleInput): Promise<unknown>;
      release(accountId: string, requestId: string, ttlMs: number): Promise<unknown>;
    },
  ) {
    redis.onReconnect(() => void this.drain());
  }

  settle(input: SettleInput) {
    this.add({ kind: 'settle', input });
  }

  release(accountId: string, requestId: string, ttlMs: number) {
    this.add({ kind: 'release', accountId, requestId, ttlMs });
  }

  get size() {
    return this.queue.length;
  }

  private add(replay: Replay) {
    if (this.queue.length >= MAX_REPLAYS) this.queue.shift();
    this.queue.push(replay);
    if (this.timer) return;
    this.timer = setInterval(() => void this.drain(), RETRY_MS);
    this.timer.unref?.();
  }

  private async drain() {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.length > 0) {
        const next = this.queue[0]!;
        try {
          if (next.kind === 'settle') await this.scripts.settle(next.input);
          else await this.scripts.release(next.accountId, next.requestId, next.ttlMs);
        } catch (error) {
          if (error instanceof KvUnavailableError) return;
          // Any other failure would fail again: drop it (the ledger already has the rows).
        }
        this.queue.shift();
      }
      this.close();
    } finally {
      this.running = false;
    }
  }

  close() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
