import { definePlugin, Type, type ChatRequest, type PluginAnswer, type PluginContext, type SettledOutcome } from '@svc/plugin-sdk';
import { cacheParameter, decide, parseCacheControl, type CacheDecision, type CacheParameter, type DecisionInput } from './controls';
import { encodeEntry, type CacheEntry } from './entry';
import { Herd, type Owner } from './herd';
import { cacheKey } from './key';
import { cacheMetrics, type CacheStatus } from './metrics';
import { cacheOptions, type CacheOptions } from './options';
import { hitCharges } from './price';
import { decodeServed, servedEntry, type ServedEntry } from './served';
import { cacheScope } from './scope';

type Ctx = PluginContext<{ cache?: CacheParameter }, CacheOptions>;

/** One request's cache state, from `isActive` to `onSettled`. */
interface RequestState {
  input: DecisionInput;
  decision: CacheDecision;
  /** The entry's hash, once `respond` computed it. */
  key: string | null;
  /** Set when this request owns the herd lock of its key. */
  owner: Owner<ServedEntry> | null;
}

// By request id: every hook of a request sees the same id, whatever context object carries it.
// onSettled removes the state; it runs for every request whose plugins were asked isActive.
const states = new Map<string, RequestState>();
const MAX_PENDING = 100_000;
const herds = new WeakMap<Ctx['store'], Herd<ServedEntry>>();

const entryKey = (hash: string) => `e:${hash}`;

/** The herd of this store (one per store, so per app instance); its lock calls bounded like reads. */
function herdOf(ctx: Ctx): Herd<ServedEntry> {
  let herd = herds.get(ctx.store);
  if (!herd) {
    const { store } = ctx;
    const ms = ctx.options.storeTimeoutMs;
    herd = new Herd(
      {
        get: (key) => within(store.get(key), ms),
        setIfAbsent: (key, value, ttlMs) => within(store.setIfAbsent(key, value, ttlMs), ms),
        delete: (key) => within(store.delete(key), ms),
      },
      store.local === true,
    );
    herds.set(ctx.store, herd);
  }
  return herd;
}

// One rejecting promise per store-call bound, shared by every call started while it has at least
// `ms` to go: each call is bounded by `ms` to `2·ms` without a timer of its own (a timer set and
// cleared per call was a visible part of a hit's cost).
const deadlines = new Map<number, { at: number; promise: Promise<never> }>();

function deadline(ms: number): Promise<never> {
  const now = performance.now();
  let d = deadlines.get(ms);
  if (!d || d.at - now < ms) {
    const promise = new Promise<never>((_, reject) => {
      const timer = setTimeout(() => reject(new Error(`store slower than ${ms} ms`)), 2 * ms);
      (timer as { unref?: () => void }).unref?.();
    });
    promise.catch(() => {});
    d = { at: now + 2 * ms, promise };
    deadlines.set(ms, d);
  }
  return d.promise;
}

/** `promise`, or a rejection once it took longer than the bound: a store that hangs (Redis frozen) must not hold the request. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, deadline(ms)]);
}

/** A call of `ctx`'s store, bounded unless the store is in this process (where nothing can hang). */
function bounded<T>(ctx: Ctx, promise: Promise<T>): Promise<T> {
  return ctx.store.local ? promise : within(promise, ctx.options.storeTimeoutMs);
}

async function readEntry(ctx: Ctx, hash: string): Promise<ServedEntry | null> {
  const bytes = await bounded(ctx, ctx.store.getBytes(entryKey(hash)));
  return bytes === null ? null : decodeServed(hash, bytes, ctx.options.maxEntryBytes);
}

/** Says what the cache did: the header, the `svc_parameters` echo and the counter. */
function report(ctx: Ctx, status: CacheStatus, hash: string | null, age?: number): void {
  ctx.setHeader('x-svc-cache', status);
  if (hash !== null) ctx.setHeader('x-svc-cache-key', hash);
  if (age !== undefined) ctx.setHeader('age', String(age));
  ctx.echo.cache = { status: status.toLowerCase(), ...(hash !== null && { key: hash }), ...(age !== undefined && { age }) };
  cacheMetrics(ctx.services.metrics).request(ctx.model.id, status);
}

/** A hit as the pipeline's stand-in for the upstream: the stored answer, its usage marked cached, at the cache price. */
function hit(ctx: Ctx, hash: string, served: ServedEntry): PluginAnswer {
  const { entry } = served;
  const age = Math.max(0, Math.floor((ctx.services.now() - entry.storedAt) / 1000));
  report(ctx, 'HIT', hash, age);
  const answer: PluginAnswer = { completion: served.completion, charges: hitCharges(ctx.model.id, entry.costMicros, ctx.options) };
  if (ctx.options.countCachedTokens) answer.limitTokens = served.tokens;
  return answer;
}

/** The store failed: this request goes on without the cache (never a 5xx), counted. */
function outage(ctx: Ctx, state: RequestState, op: 'read' | 'lock', err: unknown): null {
  ctx.services.log.warn(`cache: store ${op} failed, bypassing`, { requestId: ctx.request.requestId, err: String(err) });
  cacheMetrics(ctx.services.metrics).storeError(op);
  state.decision = { ...state.decision, read: false, write: false };
  report(ctx, 'BYPASS', state.key);
  return null;
}

async function respondFromCache(req: ChatRequest, ctx: Ctx): Promise<PluginAnswer | null> {
  const state = states.get(ctx.request.requestId);
  if (!state) return null;
  // Now the upstream request is known, its sampling settles whether the answer may be stored.
  const decision = (state.decision = decide({ ...state.input, req }, ctx.options));
  const scope = cacheScope(ctx.options, ctx.request.accountId, ctx.request.keyId);
  if (decision.mode === 'bypass' || scope === null) {
    report(ctx, 'BYPASS', null);
    return null;
  }
  const hash = cacheKey(scope, ctx.model.id, req);
  state.key = hash;
  if (decision.mode === 'refresh') {
    report(ctx, 'REFRESH', hash);
    return null;
  }
  let entry: ServedEntry | null;
  try {
    entry = await readEntry(ctx, hash);
  } catch (err) {
    return outage(ctx, state, 'read', err);
  }
  if (entry) return hit(ctx, hash, entry);
  try {
    const joined = await herdOf(ctx).join(hash, {
      waitMs: ctx.options.herdWaitMs,
      signal: ctx.signal,
      read: () => readEntry(ctx, hash),
      canOwn: decision.write,
      holder: ctx.request.requestId,
    });
    if (joined.role === 'owner') state.owner = joined;
    else if (joined.value) return hit(ctx, hash, joined.value);
  } catch (err) {
    return outage(ctx, state, 'lock', err);
  }
  report(ctx, 'MISS', hash);
  return null;
}

/** Stores a complete, successful upstream answer; hands it to the waiting identical requests either way. */
async function storeAnswer(outcome: SettledOutcome, ctx: Ctx): Promise<void> {
  const state = states.get(ctx.request.requestId);
  if (!state) return;
  states.delete(ctx.request.requestId);
  let stored: ServedEntry | null = null;
  try {
    if (state.key === null || !state.decision.write || outcome.answeredBy !== 'upstream') return;
    const metrics = cacheMetrics(ctx.services.metrics);
    const completion = outcome.completion;
    if (!outcome.complete || completion === null || outcome.status !== 200 || outcome.error !== null) {
      metrics.skipped(ctx.model.id, 'incomplete');
      return;
    }
    const entry: CacheEntry = {
      completion: { ...completion, usage: completion.usage ?? outcome.usage },
      storedAt: ctx.services.now(),
      costMicros: outcome.cost.usdMicros,
    };
    const bytes = encodeEntry(entry, ctx.options.compressAboveBytes, ctx.options.maxEntryBytes);
    if (bytes === null) {
      metrics.skipped(ctx.model.id, 'too_large');
      return;
    }
    try {
      await bounded(ctx, ctx.store.set(entryKey(state.key), bytes, state.decision.ttlMs));
      metrics.stored(ctx.model.id, bytes.byteLength);
      stored = servedEntry(entry);
    } catch (err) {
      metrics.storeError('write');
      ctx.services.log.warn('cache: store write failed', { requestId: outcome.requestId, err: String(err) });
    }
  } finally {
    state.owner?.finish(stored);
  }
}

/**
 * `cache`: exact-match response cache. A request that asks (or whose key or model the
 * operator set to `use`) is served the stored answer of an identical earlier request of its
 * account, as JSON or replayed as a stream, at the cache price; a miss stores the complete
 * upstream answer after settlement. Identical concurrent misses make one upstream call.
 */
export const cache = definePlugin({
  name: 'cache',
  parameters: { cache: Type.Optional(cacheParameter) },
  suffixKeys: ['cache'],
  options: cacheOptions,
  isActive(ctx) {
    const param = ctx.params.cache;
    const input: DecisionInput = {
      param,
      cacheControl: parseCacheControl(ctx.request.headers.get('cache-control')),
      modelId: ctx.model.id,
      keyId: ctx.request.keyId,
    };
    const decision = decide(input, ctx.options);
    // A request that never asked, on a model and key the operator left alone, costs nothing more:
    // no header, and its stream stays zero-copy (an onSettled plugin makes the pipeline decode it).
    if (decision.mode === 'bypass' && param === undefined) return false;
    // A request whose onSettled never came (a later plugin's isActive threw) must not pile up.
    if (states.size >= MAX_PENDING) states.delete(states.keys().next().value!);
    states.set(ctx.request.requestId, { input, decision, key: null, owner: null });
    return true;
  },
  respond: respondFromCache,
  onSettled: storeAnswer,
});

export default cache;
