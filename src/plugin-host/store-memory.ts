import { pluginStoreEvicted } from '../metrics/plugins';

/** One value of the memory store: its bytes counted once, its expiry in epoch ms (Infinity for none). */
interface Entry {
  value: string | Uint8Array;
  bytes: number;
  expiresAt: number;
}

/** Bytes a value holds in memory (a JS string is UTF-16: two per code unit), plus its key. */
const sizeOf = (key: string, value: string | Uint8Array) =>
  key.length * 2 + (typeof value === 'string' ? value.length * 2 : value.byteLength) + 64;

/**
 * The plugins' store on the embedded default: one Map for every plugin (keys arrive
 * namespaced), least recently used first, evicted from the front past `maxBytes`, so a
 * cache plugin cannot grow the process without bound. Expired entries are dropped when read
 * and when eviction passes them.
 */
export class MemoryPluginKv {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  /** Entries evicted to stay within the budget (not counting expired ones), for a plugin's metrics. */
  evictions = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The bytes held now (tests and metrics). */
  get size(): number {
    return this.bytes;
  }

  /** The live entry of `key`, moved to the most recently used end. */
  read(key: string): Entry | null {
    const e = this.entries.get(key);
    if (!e) return null;
    if (e.expiresAt <= this.now()) {
      this.remove(key, e);
      return null;
    }
    this.entries.delete(key);
    this.entries.set(key, e);
    return e;
  }

  /** Stores `value`, for `ttlMs` when given. */
  write(key: string, value: string | Uint8Array, ttlMs?: number): void {
    this.writeUntil(key, value, ttlMs === undefined ? Infinity : this.now() + ttlMs);
  }

  /** Stores `value` until `expiresAt` (epoch ms), evicting the least recently used past the budget. */
  writeUntil(key: string, value: string | Uint8Array, expiresAt: number): void {
    const old = this.entries.get(key);
    if (old) this.remove(key, old);
    const bytes = sizeOf(key, value);
    // A value larger than the whole budget is not kept (it would evict everything and then itself).
    if (bytes > this.maxBytes) return;
    this.entries.set(key, { value, bytes, expiresAt });
    this.bytes += bytes;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(k, e);
      if (e.expiresAt > this.now()) {
        this.evictions++;
        // Keys arrive as `<plugin>\u0000<key>` (store.ts): the plugin names the series.
        pluginStoreEvicted(k.slice(0, Math.max(0, k.indexOf('\u0000'))));
      }
    }
  }

  /** Drops `key`. */
  remove(key: string, e = this.entries.get(key)): void {
    if (!e) return;
    this.entries.delete(key);
    this.bytes -= e.bytes;
  }
}
