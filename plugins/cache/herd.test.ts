import { describe, expect, test } from 'bun:test';
import { rejectionOf } from '../../test/helpers/rejection';
import { Herd, type LockStore } from './herd';

/** A lock store in a Map, with TTLs, counting calls. */
function mapStore() {
  const data = new Map<string, { value: string; until: number }>();
  const live = (k: string) => {
    const e = data.get(k);
    if (e && e.until <= Date.now()) data.delete(k);
    return data.get(k);
  };
  const calls = { setIfAbsent: 0 };
  const store: LockStore = {
    get: async (k) => live(k)?.value ?? null,
    setIfAbsent: async (k, value, ttlMs) => {
      calls.setIfAbsent++;
      if (live(k)) return false;
      data.set(k, { value, until: Date.now() + ttlMs });
      return true;
    },
    delete: async (k) => void data.delete(k),
  };
  return { store, data, calls };
}

const opts = (over: Partial<Parameters<Herd<string>['join']>[1]> = {}) => ({
  waitMs: 5_000,
  signal: new AbortController().signal,
  read: async () => null,
  canOwn: true,
  holder: 'r1',
  ...over,
});

describe('herd', () => {
  test('in process: one owner, the others share its answer without touching the store', async () => {
    const { store, calls } = mapStore();
    const herd = new Herd<string>(store);
    const owner = await herd.join('k', opts());
    expect(owner.role).toBe('owner');
    const waiters = Array.from({ length: 9 }, () => herd.join('k', opts()));
    owner.role === 'owner' && owner.finish('answer');
    const all = await Promise.all(waiters);
    expect(all.every((w) => w.role === 'waited' && w.value === 'answer')).toBe(true);
    expect(calls.setIfAbsent).toBe(1);
    expect(herd.size).toBe(0);
  });

  test('the owner fails: every waiter proceeds on its own (null), the lock is released', async () => {
    const { store, data } = mapStore();
    const herd = new Herd<string>(store);
    const owner = await herd.join('k', opts());
    const waiter = herd.join('k', opts());
    owner.role === 'owner' && owner.finish(null);
    expect(await waiter).toEqual({ role: 'waited', value: null });
    await Bun.sleep(0);
    expect(data.size).toBe(0);
  });

  test('a waiter is bounded by its wait and by its client leaving', async () => {
    const herd = new Herd<string>(mapStore().store);
    await herd.join('k', opts());
    expect(await herd.join('k', opts({ waitMs: 30 }))).toEqual({ role: 'waited', value: null });
    const gone = new AbortController();
    const waiting = herd.join('k', opts({ signal: gone.signal }));
    gone.abort();
    expect(await waiting).toEqual({ role: 'waited', value: null });
  });

  test('across instances: the lock elects one owner, the other polls for its entry', async () => {
    const { store } = mapStore();
    const a = new Herd<string>(store);
    const b = new Herd<string>(store);
    let stored: string | null = null;
    const owner = await a.join('k', opts());
    expect(owner.role).toBe('owner');
    const remote = b.join('k', opts({ read: async () => stored }));
    const local = b.join('k', opts());
    await Bun.sleep(60);
    stored = 'answer';
    owner.role === 'owner' && owner.finish('answer');
    expect(await remote).toEqual({ role: 'waited', value: 'answer' });
    expect(await local).toEqual({ role: 'waited', value: 'answer' });
  });

  test('a request that will not store never owns; a failing store throws to the caller', async () => {
    const { store } = mapStore();
    const herd = new Herd<string>(store);
    expect(await herd.join('k', opts({ canOwn: false }))).toEqual({ role: 'waited', value: null });
    const broken = new Herd<string>({ ...store, setIfAbsent: () => Promise.reject(new Error('down')) });
    expect((await rejectionOf(broken.join('k', opts()))).message).toBe('down');
    await Bun.sleep(0);
    expect(broken.size).toBe(0);
  });

  test('a local store: no lock calls at all; an owner that never finishes holds its key only for the wait', async () => {
    const { store, calls } = mapStore();
    const herd = new Herd<string>(store, true);
    const owner = await herd.join('k', opts({ waitMs: 40 }));
    expect(owner.role).toBe('owner');
    // A waiter is bounded by what is left of the owner's time, not by its own longer wait.
    const started = performance.now();
    expect(await herd.join('k', opts({ waitMs: 5_000 }))).toEqual({ role: 'waited', value: null });
    expect(performance.now() - started).toBeLessThan(2_000);
    // Once its time is over (a timer may fire a fraction of a ms early), the stale flight is replaced: the next request owns the key.
    await Bun.sleep(5);
    expect((await herd.join('k', opts())).role).toBe('owner');
    expect(calls.setIfAbsent).toBe(0);
  });
});
