import type { KeyCache } from './auth/key-cache';
import type { UsageMeter } from './billing/meter';
import type { Config } from './config';
import type { Storage } from './db/database';
import type { KeyValueStore } from './kv/store';
import type { RateLimiter } from './limits/types';
import type { Logger } from './log';
import type { ModelCatalog } from './models/catalog';
import type { ProviderRegistry } from '../providers/registry';
import type { Observability } from './request-log/observability';

/**
 * Everything the app needs from outside, injected so tests can swap any of it
 * (fixture upstreams through `fetch`, a fake clock, a fresh database).
 */
export interface AppDeps {
  config: Config;
  storage: Storage;
  kv: KeyValueStore;
  keys: KeyCache;
  models: ModelCatalog;
  /** Per-model rate limits (spec 8.1); the meter calls it when a request opens. */
  limits: RateLimiter;
  meter: UsageMeter;
  /** Model providers built from config and the replica router over them. */
  providers: ProviderRegistry;
  log: Logger;
  /** Wall clock in epoch ms; tests inject a fake one for window resets. */
  now: () => number;
  /** Outbound fetch for providers; tests point it at fixture servers. */
  fetch: typeof fetch;
  /** The request log's writer and the spend series; absent in apps built without createDeps. */
  observability?: Observability;
}
