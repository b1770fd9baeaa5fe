import { noteSettlements } from './request-log/settlement-notes';
import { startObservability } from './request-log/observability';
import { tracingOf } from './tracing';
import { correlatedLogger } from './tracing/log-correlation';
import { createKeyCache } from './auth/key-cache';
import { createUsageMeter } from './billing/live-meter';
import { walletAdmission } from './x402/wallet-admission';
import type { UsageMeter } from './billing/meter';
import { ConfigError, type Config } from './config';
import type { Storage } from './db/database';
import { openStorage } from './db/open';
import type { AppDeps } from './deps';
import { stopJobs } from './jobs/runtime';
import { stopResponses } from './responses/runtime';
import type { KeyValueStore } from './kv/store';
import type { RateLimiter } from './limits/types';
import { createRateLimiter } from './limits/limiter';
import { openKeyValueStore } from './kv/redis';
import { createLogger, type Logger } from './log';
import { observedUpstreamFetch, observeInProcessCall } from './metrics/upstream-fetch';
import { createCatalog } from './models/catalog';
import { upstreamCapabilities } from '../providers/simulator-chat/catalog';
import { createProviderRegistry } from '../providers/registry';
import { capabilityMismatch } from '../providers/model-capability';
import { DEFAULT_COMPATIBILITY_MAPPING, DEFAULT_MODELS, SIMULATOR_PROVIDER } from './models/default-catalog';
import { closePluginHost } from './plugin-host';

/** Providers from config, plus the simulator when nothing else is configured. */
export function effectiveProviders(config: Config) {
  return config.providers.length === 0 || config.models.length === 0
    ? [...config.providers.filter((p) => p.id !== SIMULATOR_PROVIDER.id), SIMULATOR_PROVIDER]
    : config.providers;
}

/**
 * Builds the dependencies from config: storage (migrated), KV store, key cache and model
 * catalog. Pieces given in `overrides` are used as they are (tests pass a cloned database).
 */
export async function createDeps(
  config: Config,
  overrides: {
    storage?: Storage;
    kv?: KeyValueStore;
    log?: Logger;
    now?: () => number;
    fetch?: typeof fetch;
    meter?: UsageMeter;
    limits?: RateLimiter;
  } = {},
): Promise<AppDeps> {
  // Tracing first: when on, every log line that names a live request also carries its trace id.
  const baseLog = overrides.log ?? createLogger(config.logLevel);
  const tracing = await tracingOf(config, baseLog);
  const log = tracing ? correlatedLogger(baseLog, tracing) : baseLog;
  const storage = overrides.storage ?? (await openStorage(config));
  const kv = overrides.kv ?? (await openKeyValueStore(config));
  const now = overrides.now ?? Date.now;
  const keys = await createKeyCache(storage.db, kv, { now });
  const providers = effectiveProviders(config);
  const simulators = new Set(providers.filter((p) => p.kind === 'simulator').map((p) => p.id));
  const useDefaults = config.models.length === 0;
  const models = createCatalog({
    models: useDefaults ? DEFAULT_MODELS : config.models,
    traits: config.traits,
    compatibilityMapping: useDefaults ? { ...DEFAULT_COMPATIBILITY_MAPPING, ...config.compatibilityMapping } : config.compatibilityMapping,
    simulatorProviders: simulators,
  });
  const providerIds = new Set(providers.map((p) => p.id));
  for (const m of models.list())
    for (const r of m.config.routes)
      if (!providerIds.has(r.provider)) throw new ConfigError(`models: model "${m.id}" routes to unknown provider "${r.provider}"`);
  const outbound = overrides.fetch ?? fetch;
  // Upstream model names of reasoning models, so the simulator knows which ones think.
  const reasoning = new Set<string>();
  for (const m of models.list('text'))
    if (m.config.capabilities?.supportsReasoning) for (const r of m.config.routes) reasoning.add(r.model ?? m.id);
  // Upstream model names of embedding models, with their dimension.
  const dimensions = new Map<string, number>();
  for (const m of models.list('embedding'))
    if (m.config.dimensions) for (const r of m.config.routes) dimensions.set(r.model ?? m.id, m.config.dimensions);
  const modelProviders = createProviderRegistry(providers, {
    fetch: observedUpstreamFetch(outbound, providers),
    observeCall: observeInProcessCall,
    log,
    catalog: {
      isReasoning: (name) => reasoning.has(name),
      dimensionsOf: (name) => dimensions.get(name),
      capabilitiesOf: upstreamCapabilities(models),
    },
  });
  const mismatch = capabilityMismatch(models.list(), modelProviders);
  if (mismatch) throw new ConfigError(`models: ${mismatch}`);
  const limits = overrides.limits ?? (await createRateLimiter({ config, storage, kv, now, log }));
  const observability = startObservability({ config, db: storage.db, log, now, tracing });
  const meter = noteSettlements(
    overrides.meter ??
      walletAdmission(createUsageMeter({ db: storage.db, kv, limits, now, log, config, models }), {
        kv,
        config,
        now,
        fetch: outbound,
        log,
      }),
    observability.spend,
  );
  const recovered = await meter.recover();
  if (recovered.restored + recovered.expired > 0) log.info('billing: kept reservations recovered', recovered);
  return { config, storage, kv, keys, models, limits, meter, providers: modelProviders, log, now, fetch: outbound, observability };
}

/** Closes what createDeps opened. */
export async function closeDeps(deps: AppDeps) {
  await stopJobs(deps);
  await stopResponses(deps);
  await deps.meter.close();
  await deps.observability?.close();
  await deps.limits.close();
  await deps.keys.close();
  await closePluginHost(deps);
  await deps.kv.close();
  await deps.storage.close();
}
