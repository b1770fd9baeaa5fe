import { headersOnly } from '../limits/types';
import type { ModelCatalog } from '../models/catalog';
import type { MeterTicket } from './meter';
import {
  deleteReservation,
  expiredReservations,
  findReservation,
  ledgerHas,
  listReservations,
  type StoredReservation,
} from './reservations';
import { createTicket, type TicketDeps } from './ticket';

/** What the keeper needs beyond a ticket's deps: the catalog and the account mirror initialiser. */
export interface KeeperDeps extends TicketDeps {
  models?: Pick<ModelCatalog, 'get'>;
  /** Initialises an account's balance mirror if needed (undefined when it already is). */
  ensureMirror(accountId: string): Promise<void> | undefined;
  /** How often expired reservations are refunded (default 60 s). */
  sweepIntervalMs?: number;
}

/** A restored reservation was admitted by the request that made it: there is nothing to correct. */
const ADMITTED = headersOnly({});

/**
 * Keeps reservations that outlive their request (queued jobs): hands back a ticket for a
 * reservation by request id (`resume`), restores every kept hold after a restart or a KV
 * loss (`recover`), and refunds the ones whose time ran out (`expire`, also on a timer).
 */
export function createReservationKeeper(d: KeeperDeps) {
  /** Puts the hold back in the store if it is gone (restart on memory, Redis lost its data). */
  async function restoreHold(r: StoredReservation): Promise<void> {
    const init = d.ensureMirror(r.accountId);
    if (init) await init;
    if (await d.store.hasHold(r.accountId, r.requestId)) return;
    const candidates = [{ currency: r.currency, amount: r.amount, counter: '', limit: 0 }];
    const result = await d.store.reserve({
      accountId: r.accountId,
      requestId: r.requestId,
      candidates,
      report: [],
      now: d.now(),
      expiresAt: r.expiresAt,
      counterTtlMs: 0,
    });
    // The charge was promised before the restart: it is still settled when the job ends, even if the balance has dipped meanwhile.
    if (result.status !== 'held')
      d.log.warn('billing: a restored reservation no longer fits the balance', { requestId: r.requestId, status: result.status });
  }

  /** Refunds one reservation: its hold is dropped, nothing is charged, and a later settle charges nothing. */
  async function expireOne(r: StoredReservation): Promise<void> {
    await d.store.release(r.accountId, r.requestId, d.settledTtlMs);
    await deleteReservation(d.db, r.requestId);
  }

  async function expire(): Promise<number> {
    const due = await expiredReservations(d.db, d.now());
    for (const r of due) await expireOne(r);
    return due.length;
  }

  const timer = setInterval(() => {
    expire().catch((error) => d.log.warn('billing: expiring reservations failed', { error: String(error) }));
  }, d.sweepIntervalMs ?? 60_000);
  timer.unref?.();

  return {
    /** The ticket of a kept reservation, its hold restored if needed; null when settled, refunded or expired. */
    async resume(requestId: string): Promise<MeterTicket | null> {
      const r = await findReservation(d.db, requestId);
      if (!r) return null;
      if (r.expiresAt <= d.now()) {
        await expireOne(r);
        return null;
      }
      await restoreHold(r);
      const model = r.modelId ? (d.models?.get(r.modelId) ?? null) : null;
      return createTicket(d, {
        accountId: r.accountId,
        apiKeyId: r.apiKeyId,
        keyPeriod: null,
        model,
        held: { currency: r.currency, amount: r.amount, counter: r.counter, limit: 0 },
        admission: ADMITTED,
        shown: { headers: {}, balances: { usd: 0, diem: 0 } },
        requestId,
        durable: true,
      });
    },
    /** At start: refunds expired reservations, forgets those the ledger shows settled, restores the rest. */
    async recover(): Promise<{ restored: number; expired: number }> {
      let restored = 0;
      let expired = 0;
      for (const r of await listReservations(d.db)) {
        if (r.expiresAt <= d.now()) {
          await expireOne(r);
          expired++;
        } else if (await ledgerHas(d.db, r.requestId)) await deleteReservation(d.db, r.requestId);
        else {
          await restoreHold(r);
          restored++;
        }
      }
      return { restored, expired };
    },
    expire,
    stop: () => clearInterval(timer),
  };
}
