import type { PluginServices } from '@svc/plugin-sdk';

/** What happened to one request, as `x-svc-cache` says it. */
export type CacheStatus = 'HIT' | 'MISS' | 'REFRESH' | 'BYPASS';

/** The cache's counters in /metrics, labelled by catalog model (bounded by the catalog). */
export interface CacheMetrics {
  /** One request's status (`status`: hit, miss, refresh, bypass). */
  request(model: string, status: CacheStatus): void;
  /** An entry stored, and its size. */
  stored(model: string, bytes: number): void;
  /** An answer not stored (`reason`: too_large, incomplete). */
  skipped(model: string, reason: 'too_large' | 'incomplete'): void;
  /** The store failed or timed out (`op`: read, write, lock): the request went on as a bypass. */
  storeError(op: 'read' | 'write' | 'lock'): void;
}

const registered = new WeakMap<PluginServices['metrics'], CacheMetrics>();

/** The cache's counters, registered once per metrics registry. */
export function cacheMetrics(metrics: PluginServices['metrics']): CacheMetrics {
  let out = registered.get(metrics);
  if (out) return out;
  const requests = metrics.counter('requests_total', 'Cacheable requests by cache status (hit, miss, refresh, bypass).', [
    'model',
    'status',
  ]);
  const stores = metrics.counter('stores_total', 'Answers stored in the response cache.', ['model']);
  const bytes = metrics.counter('stored_bytes_total', 'Bytes written to the response cache (after compression).', ['model']);
  const skips = metrics.counter('skipped_total', 'Answers not stored (too large, not complete).', ['model', 'reason']);
  const errors = metrics.counter('store_errors_total', 'Response cache store failures (the request bypassed the cache).', ['op']);
  out = {
    request: (model, status) => requests.inc({ model, status: status.toLowerCase() }),
    stored(model, size) {
      stores.inc({ model });
      bytes.inc({ model }, size);
    },
    skipped: (model, reason) => skips.inc({ model, reason }),
    storeError: (op) => errors.inc({ op }),
  };
  registered.set(metrics, out);
  return out;
}
