import type { Currency } from './credit';
import { requestIdKey } from '../http/request-ids';
import { CURRENCIES } from './mirror-init';
import type { Charged } from './store';

/**
 * The memory store's record of settled request ids, for idempotent re-settlement: what each
 * id was charged, remembered for at least `ttlMs` (and at most twice that).
 *
 * Kept cheap because every request adds one: ids live in two generations of Maps that are
 * swapped every `ttlMs` (no per-entry expiry time, no sweep), and the charge is packed into
 * one number (amount x 8 + currency index; amounts stay exact below 2^50 micro-units). An
 * object per id with its own expiry cost ~150 bytes a request and grew a busy process's RSS
 * for as long as the window (bench soak). svc's own ids are kept as integers (`requestIdKey`).
 */
export class SettledIds {
  private current = new Map<string | number, number>();
  private previous = new Map<string | number, number>();
  private generationStart: number | null = null;

  constructor(private readonly now: () => number) {}

  get(requestId: string): Charged | null {
    const key = requestIdKey(requestId);
    const packed = this.current.get(key) ?? this.previous.get(key);
    return packed === undefined ? null : { currency: CURRENCIES[packed % 8] as Currency, amount: Math.floor(packed / 8) };
  }

  set(requestId: string, charged: Charged, ttlMs: number) {
    this.rotate(ttlMs);
    this.current.set(requestIdKey(requestId), charged.amount * 8 + CURRENCIES.indexOf(charged.currency));
  }

  private rotate(ttlMs: number) {
    const now = this.now();
    if (this.generationStart === null) this.generationStart = now;
    if (now - this.generationStart < ttlMs) return;
    // The current generation becomes the previous one (its ids are then kept one more
    // window); after a quiet gap of two windows or more, both are old enough to drop.
    this.previous = now - this.generationStart >= 2 * ttlMs ? new Map() : this.current;
    this.current = new Map();
    this.generationStart = now;
  }
}
