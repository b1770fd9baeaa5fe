import { badRequest, invalidField, tooManyRequests } from '../http/errors';
import type { KeyValueStore } from '../kv/store';

/** The `Idempotency-Key` header's pattern (API-NOTES 11). */
export const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{1,255}$/;

/** What a replay sends back: the relayed text and what it cost the first time. */
export interface StoredAnswer {
  text: string;
  credits: number;
  costUsd: string;
}

type Entry = { state: 'pending'; hash: string } | ({ state: 'done'; hash: string } & StoredAnswer);

/** The outcome of claiming a key: a stored answer to replay, or the right to run the call and record its answer. */
export type Claim = { replay: StoredAnswer } | { replay: null; finish(answer: StoredAnswer | null): Promise<void> };

const CHANNEL = 'rpc-idempotency';

/** Checks the header's value; a 400 naming it when malformed. */
export function checkIdempotencyKey(value: string): void {
  if (!IDEMPOTENCY_KEY.test(value)) throw invalidField(['Idempotency-Key'], 'must be 1 to 255 letters, digits, "_" or "-"', 'header');
}

/**
 * Idempotency keys in the KV, per (account, key): the first request claims the key (an
 * atomic set-if-absent), runs the call and stores its answer for `ttlMs`; a replay gets the
 * stored answer; the same key with another body is a 400. A request that finds the key
 * claimed but unanswered waits for the answer (a KV broadcast, so across instances too)
 * instead of calling the node again; if the first one fails, the key is freed and the next
 * request runs the call itself.
 */
export class IdempotencyKeys {
  constructor(
    private readonly kv: KeyValueStore,
    private readonly o: { ttlMs: number; pendingMs: number },
  ) {}

  /**
   * Listens for `name`'s answer: a promise that settles when it is stored or freed, or after
   * `ms`, and the function that stops listening. Only a request that finds a key claimed
   * listens (on the key's own channel), so nothing stays subscribed.
   */
  private async listen(name: string, ms: number): Promise<{ done: Promise<void>; stop(): Promise<void> }> {
    let wake!: () => void;
    const done = new Promise<void>((resolve) => (wake = resolve));
    const unsubscribe = await this.kv.subscribe(`${CHANNEL}:${name}`, () => wake());
    const timer = setTimeout(wake, ms);
    return {
      done,
      async stop() {
        clearTimeout(timer);
        await unsubscribe();
      },
    };
  }

  /** Claims `key` of `accountId` for a request whose body hashes to `hash` (see the class comment). */
  async claim(accountId: string, key: string, hash: string): Promise<Claim> {
    const name = `rpc-idem:${accountId}:${key}`;
    const deadline = Date.now() + this.o.pendingMs;
    for (;;) {
      if (await this.kv.setIfAbsent(name, JSON.stringify({ state: 'pending', hash } satisfies Entry), this.o.pendingMs))
        return { replay: null, finish: (answer) => this.finish(name, hash, answer) };
      // Listen before reading, so an answer stored in between is not missed.
      const waiting = await this.listen(name, Math.max(1, deadline - Date.now()));
      try {
        const raw = await this.kv.get(name);
        if (raw === null) continue;
        const entry = JSON.parse(raw) as Entry;
        if (entry.hash !== hash)
          throw badRequest('Idempotency-Key: was already used with a different request body; use a new key for a new request', [
            { path: ['Idempotency-Key'], message: 'was used with a different request body' },
          ]);
        if (entry.state === 'done') return { replay: { text: entry.text, credits: entry.credits, costUsd: entry.costUsd } };
        if (Date.now() >= deadline) throw tooManyRequests('Idempotency-Key: a request with this key is still running; retry it later');
        await waiting.done;
      } finally {
        await waiting.stop();
      }
    }
  }

  /** Stores the answer (or frees the key after a failure) and wakes the requests waiting for it. */
  private async finish(name: string, hash: string, answer: StoredAnswer | null): Promise<void> {
    if (answer) await this.kv.set(name, JSON.stringify({ state: 'done', hash, ...answer } satisfies Entry), this.o.ttlMs);
    else await this.kv.del(name);
    await this.kv.publish(`${CHANNEL}:${name}`, '');
  }
}

/** The hash a key's body is compared by: the network and the body text. */
export function bodyHash(network: string, text: string): string {
  return new Bun.CryptoHasher('sha256').update(network).update('\n').update(text).digest('hex');
}
