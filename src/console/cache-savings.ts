import { sql } from 'drizzle-orm';
import type { Database } from '../db/database';
import { WINDOWS, type WindowName } from './series';

/** The response cache's effect on one model's requests over a window. */
export interface CacheSavings {
  model: string;
  /** Requests of the model settled in the window (every request, cached or not). */
  requests: number;
  /** Of them, answered from the cache (a line on the `<model>-cache-hit` SKU). */
  hits: number;
  /** hits / requests. */
  hitRate: number;
  /** What the hits were charged (micro-USD, USD and USDC charges). */
  chargedMicros: number;
  /**
   * An estimate of what the hits would have cost from the model: the mean charge of the
   * model's other requests in the window, times the hits; null when none of those exist.
   */
  originalMicros: number | null;
  /** originalMicros - chargedMicros; null with it. */
  savedMicros: number | null;
}

/** Suffix of a cache hit's SKU (the cache plugin's `<model>-cache-hit`). */
const HIT_SKU_SUFFIX = '-cache-hit';

/**
 * Hit rate and savings per model over `window`, from the ledger (one `ledger_charges` row
 * per request): a hit is a charge whose lines include the model's cache-hit SKU. The ledger
 * keeps no original price for a hit, so what it saved is estimated from the model's other
 * requests in the same window (a mix of prompt lengths: an average, not each hit's own).
 */
export async function cacheSavings(db: Database, accountId: string, window: WindowName, now: number): Promise<CacheSavings[]> {
  const since = new Date(now - WINDOWS[window].spanMs).toISOString();
  const result = await db.execute(sql`
    select model_id as model, count(*) as requests,
           count(*) filter (where hit) as hits,
           coalesce(sum(spend) filter (where hit), 0) as charged,
           avg(spend) filter (where not hit and usd) as mean_other
    from (
      select model_id, currency in ('USD', 'USDC') as usd,
             case when currency in ('USD', 'USDC') then -amount_micros else 0 end as spend,
             exists (select 1 from json_array_elements(lines) l where l->>'sku' = model_id || ${HIT_SKU_SUFFIX}) as hit
        from ledger_charges
       where account_id = ${accountId} and created_at >= ${since}::timestamptz and model_id is not null
    ) c
    group by model_id
    having count(*) filter (where hit) > 0
    order by hits desc`);
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Record<string, unknown>[];
  return rows.map((r) => {
    const requests = Number(r.requests);
    const hits = Number(r.hits);
    const chargedMicros = Number(r.charged);
    const mean = r.mean_other === null || r.mean_other === undefined ? null : Number(r.mean_other);
    const originalMicros = mean === null ? null : Math.round(mean * hits);
    return {
      model: String(r.model),
      requests,
      hits,
      hitRate: requests > 0 ? hits / requests : 0,
      chargedMicros,
      originalMicros,
      savedMicros: originalMicros === null ? null : originalMicros - chargedMicros,
    };
  });
}
