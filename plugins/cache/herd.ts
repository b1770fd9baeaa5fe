import type { PluginStore } from '@svc/plugin-sdk';

/** The store operations the herd lock needs. */
export type LockStore = Pick<PluginStore, 'get' | 'setIfAbsent' | 'delete'>;

/** This request calls the upstream; `finish` hands its entry (or null) to whoever waits. */
export interface Owner<T> {
  role: 'owner';
  finish(value: T | null): void;
}
/** Another request called the upstream; `value` is its entry, or null (failed, not stored, waited too long). */
export interface Waited<T> {
  role: 'waited';
  value: T | null;
}

interface Flight<T> {
  promise: Promise<T | null>;
  resolve(value: T | null): void;
  /** `performance.now()` past which the flight is over even if its owner never finished (the lock's lifetime). */
  until: number;
}

/** How a join waits for an owner on another instance. */
export interface JoinOptions<T> {
  /** The longest wait before proceeding alone (also the lock's lifetime). */
  waitMs: number;
  /** Aborted when the client leaves: stop waiting. */
  signal: AbortSignal;
  /** Reads the entry the owner stores (polled while another instance holds the lock). */
  read(): Promise<T | null>;
  /** False for a request that will not store its answer: it may wait, never own. */
  canOwn: boolean;
  /** Names the lock's holder (the request id), for whoever inspects the store. */
  holder: string;
}

const FIRST_POLL_MS = 20;
const MAX_POLL_MS = 250;

function deferred<T>(until: number): Flight<T> {
  const { promise, resolve } = Promise.withResolvers<T | null>();
  return { promise, resolve, until };
}

/** Resolves with `promise`, or with null once `ms` passed or `signal` aborted. */
function bounded<T>(promise: Promise<T | null>, ms: number, signal: AbortSignal): Promise<T | null> {
  if (signal.aborted) return Promise.resolve(null);
  return new Promise((resolve) => {
    const done = (value: T | null) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(value);
    };
    const onAbort = () => done(null);
    const timer = setTimeout(done, ms, null);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(done, () => done(null));
  });
}

/**
 * Single flight for identical misses (the thundering herd): the first request of a key
 * owns it and calls the upstream; the others wait for its entry. Within one instance the
 * waiters share the owner's promise (no polling); across instances a lock in the store
 * (`setIfAbsent` with a TTL) elects the owner and the others poll for the entry with backoff.
 * A store that is `local` (in this process) needs no lock: the flights here are all there are.
 * A wait is bounded: past it, or when the owner stored nothing, each proceeds on its own.
 */
export class Herd<T> {
  private readonly flights = new Map<string, Flight<T>>();

  /** `local`: the store is in this process, so no other instance can hold a key's lock. */
  constructor(
    private readonly store: LockStore,
    private readonly local = false,
  ) {}

  /** Requests in flight on this instance (tests, and a leak would show here). */
  get size(): number {
    return this.flights.size;
  }

  /** Joins the flight of `key`: owner of it, or its outcome after waiting. Throws when the store fails. */
  async join(key: string, opts: JoinOptions<T>): Promise<Owner<T> | Waited<T>> {
    const local = this.flights.get(key);
    // An owner that never finished (its request's onSettled never came) holds its flight only
    // for the lock's lifetime: checked here rather than by a timer per owner.
    const left = local ? local.until - performance.now() : 0;
    if (local && left > 0) return { role: 'waited', value: await bounded(local.promise, Math.min(opts.waitMs, left), opts.signal) };
    if (local) this.land(key, local, null);
    if (!opts.canOwn) return { role: 'waited', value: null };
    const flight = deferred<T>(performance.now() + opts.waitMs);
    this.flights.set(key, flight);
    if (this.local) return this.owner(key, flight, null);
    const lock = `lock:${key}`;
    let won: boolean;
    try {
      won = await this.store.setIfAbsent(lock, opts.holder, Math.max(1, opts.waitMs));
    } catch (err) {
      this.land(key, flight, null);
      throw err;
    }
    if (won) return this.owner(key, flight, lock);
    const value = await this.poll(lock, opts).catch(() => null);
    this.land(key, flight, value);
    return { role: 'waited', value };
  }

  /** Ends `flight` with `value` for its waiters; the next join of `key` starts a new one. */
  private land(key: string, flight: Flight<T>, value: T | null): void {
    if (this.flights.get(key) === flight) this.flights.delete(key);
    flight.resolve(value);
  }

  /** The owner's handle: finishing lands the flight and releases the store's lock (when there is one). */
  private owner(key: string, flight: Flight<T>, lock: string | null): Owner<T> {
    return {
      role: 'owner',
      finish: (value) => {
        this.land(key, flight, value);
        if (lock !== null) this.store.delete(lock).catch(() => {});
      },
    };
  }

  /** Polls for the other instance's entry until it lands, its lock goes, the wait ends or the client leaves. */
  private async poll(lock: string, opts: JoinOptions<T>): Promise<T | null> {
    const until = Date.now() + opts.waitMs;
    let delay = FIRST_POLL_MS;
    while (!opts.signal.aborted && Date.now() < until) {
      await Bun.sleep(Math.min(delay, Math.max(0, until - Date.now())));
      const [value, holder] = await Promise.all([opts.read(), this.store.get(lock)]);
      if (value !== null) return value;
      // The lock is gone without an entry: the owner failed or stored nothing; proceed.
      if (holder === null) return opts.read();
      delay = Math.min(MAX_POLL_MS, Math.round(delay * 1.5));
    }
    return null;
  }
}
