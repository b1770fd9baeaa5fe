import { tooManyRequests } from '../http/errors';
import type { KeyValueStore } from '../kv/store';

const DAY_MS = 86_400_000;

/** The credits a request holds against its account's daily cap, corrected or given back once it ends. */
export interface CapHold {
  /** Replaces the held credits by what the request consumed. */
  settle(credits: number): Promise<void>;
  /** Gives the held credits back (nothing was consumed). */
  release(): Promise<void>;
}

const NO_HOLD: CapHold = { settle: async () => {}, release: async () => {} };

/**
 * Takes `credits` from the account's cap for the current UTC day (one atomic KV increment,
 * given back at once when it goes over): a 429 naming the cap, with the reset at midnight.
 */
export async function holdDailyCredits(
  kv: KeyValueStore,
  o: { accountId: string; credits: number; cap: number; now: number },
): Promise<CapHold> {
  if (o.cap === 0) return NO_HOLD;
  const day = Math.floor(o.now / DAY_MS);
  const key = `rpc-credits:${o.accountId}:${day}`;
  const total = await kv.incrBy(key, o.credits, DAY_MS + 3_600_000);
  if (total > o.cap) {
    await kv.incrBy(key, -o.credits);
    const resetMs = (day + 1) * DAY_MS;
    throw tooManyRequests(
      `Rate limit exceeded: the daily cap of ${o.cap} RPC credits per account is reached (this request needs ${o.credits}); it resets at 00:00 UTC`,
      {
        'x-ratelimit-limit': String(o.cap),
        'x-ratelimit-remaining': String(Math.max(0, o.cap - (total - o.credits))),
        'x-ratelimit-reset': String(Math.ceil(resetMs / 1000)),
      },
      resetMs - o.now,
    );
  }
  let open = true;
  const change = async (by: number) => {
    if (!open) return;
    open = false;
    if (by !== 0) await kv.incrBy(key, by);
  };
  return { settle: (credits) => change(credits - o.credits), release: () => change(-o.credits) };
}
