import type { Static, TObject, TProperties } from '@sinclair/typebox';
import type { ChatChunk, ChatCompletion, ChatRequest, ChatUsage, ChunkTransformer } from './wire.js';
import type { PluginMetrics } from './metrics.js';
import type { PluginCharacters, PluginFetch, PluginLogger, PluginWebTools } from './services.js';

/** A line item charged at settlement, in micro-USD (integers): web search, a cached answer, a guard's check. */
export interface PluginCharge {
  sku: string;
  units: number;
  /** Price of one unit in micro-USD. */
  unitPriceMicros: number;
}

/** A plugin's answer instead of the upstream's (`respond`): it then goes through the response side like an upstream answer. */
export interface PluginAnswer {
  /**
   * The answer; its `usage` is what the client is shown (e.g. the original counts of a cached answer).
   * svc never writes to it, so a plugin may hand the same (frozen) object to many requests; its
   * stream replay is then encoded once per object.
   */
  completion: ChatCompletion;
  /** What the meter charges for this answer; absent or [] = free. One ledger row with these SKUs. */
  charges?: PluginCharge[];
  /**
   * Tokens the rate limits (TPM) count for this answer; absent = 0 (no model was called).
   * A cache counts the original answer's tokens, so hits cannot pass a token limit for free.
   */
  limitTokens?: number;
}

/**
 * A plugin's own key-value namespace (keys are prefixed with its name): byte-budgeted LRU
 * memory on the embedded default, Redis (single or Cluster) in production. Values are
 * strings or bytes; TTLs in milliseconds.
 */
export interface PluginStore {
  /**
   * True when the store lives in this process (the embedded default): no other instance sees
   * its entries, and its calls neither fail nor hang, so a plugin may skip a cross-instance
   * lock or a time bound around them. False (or absent) for Redis.
   */
  readonly local?: boolean;
  get(key: string): Promise<string | null>;
  getBytes(key: string): Promise<Uint8Array | null>;
  set(key: string, value: string | Uint8Array, ttlMs?: number): Promise<void>;
  /** Sets only when the key is absent (a lock against a thundering herd); true when it was set. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Adds `by` atomically and returns the new value (a missing key counts from 0); the TTL is set when given. */
  incrBy(key: string, by: number, ttlMs?: number): Promise<number>;
}

/** What plugins may use beyond the request; never the database or the whole app. */
export interface PluginServices {
  /** The settings a plugin reads, named here rather than the app's whole config. */
  config: { systemPrompt: string; allowPrivateUrls: boolean };
  log: PluginLogger;
  /** Wall clock in epoch ms (tests inject a fake one). */
  now: () => number;
  /** The base of every user-URL fetch: the operator's private-address switch and the injected fetch. */
  urlGuard: { allowPrivate: boolean; fetch?: typeof fetch };
  /** Fetches a user's or operator's URL through the SSRF guard (public addresses only unless the operator allows more). */
  fetch: PluginFetch;
  /** The configured search engine and web-tool prices. */
  web: PluginWebTools;
  /** The public characters' system prompts. */
  characters: PluginCharacters;
  /** Counters and histograms of the plugin's own, exported in /metrics. */
  metrics: PluginMetrics;
  /** Tokens of `text` as svc's meter counts them (o200k) when an upstream reports none. */
  countTokens(text: string): number;
}

/** The catalog model a request resolved to. */
export interface PluginModel {
  id: string;
  name: string;
  type: string;
  /** The catalog entry's config: capabilities, prices, limits. */
  config: { capabilities?: { [capability: string]: unknown }; [field: string]: unknown };
}

/** The request a plugin runs for. */
export interface PluginRequest {
  /** The request id (CF-RAY), in every log line and response. */
  requestId: string;
  /** performance.now() when the request arrived. */
  startedAt: number;
  accountId: string | null;
  keyId: string | null;
  /**
   * Guardrail names the operator attached to the request's API key and to its account through
   * the ADMIN API (stored, seen by every instance on the key cache's invalidation); empty for
   * a wallet session or an anonymous caller. The `guardrails` plugin adds them to what runs.
   */
  assignedGuardrails: { key: readonly string[]; account: readonly string[] };
  /** '/chat/completions' or '/responses'. */
  route: string;
  /** The client's request headers (read-only), e.g. `cache-control`. */
  headers: Headers;
}

/** What a plugin sees and may add to while one chat request runs: `P` its parameters, `O` its operator options. */
export interface PluginContext<P = Record<string, unknown>, O = Record<string, unknown>> {
  /** This plugin's name. */
  plugin: string;
  /** svc_parameters after merging body and model suffix, with defaults applied: this plugin's typed, the others' readable. */
  params: P & Record<string, unknown>;
  /** This plugin's operator options (validated at start, defaults applied). */
  options: O;
  /** This plugin's own key-value namespace. */
  store: PluginStore;
  request: PluginRequest;
  model: PluginModel;
  services: PluginServices;
  /** Aborted when the client disconnects or the request times out. */
  signal: AbortSignal;
  /** Whether the client asked for a stream. */
  stream: boolean;
  /** Extra line items to charge at settlement (web search, scraping, x-search). */
  extraCharges: PluginCharge[];
  /** Fields merged into the response's `svc_parameters` echo. */
  echo: Record<string, unknown>;
  /**
   * Short notes on the request for its ledger row, by topic (`notes.cache = 'HIT'`,
   * `notes.guardrails = 'pii=redact'`): shown with the charge in the usage history as
   * "API Inference; cache: HIT; guardrails: pii=redact". Only what is set before the
   * settlement is recorded (before the answer, or a stream's end); never user text or secrets.
   */
  notes: Record<string, string>;
  /** Chunks emitted before the first upstream chunk (e.g. search results). */
  leadingChunks: ChatChunk[];
  /** Sets a response header (e.g. `x-svc-cache: HIT`); too late once a stream's headers went out. */
  setHeader(name: string, value: string): void;
}

/** What a request came to, given to `onSettled` after settlement, off the response's path. */
export interface SettledOutcome {
  requestId: string;
  accountId: string | null;
  keyId: string | null;
  route: string;
  /** The model that answered. */
  model: string;
  stream: boolean;
  /** As sent upstream (or as it would have been, when a plugin answered). */
  request: ChatRequest;
  /** 'upstream' or the responding plugin's name. */
  answeredBy: 'upstream' | (string & {});
  /**
   * The answer before the response-side transforms (a stream's chunks assembled; a plugin's
   * answer as it gave it, the same object); null when nothing complete was produced. Read-only.
   */
  completion: ChatCompletion | null;
  /** Finished normally: not cut, aborted, failed or refused. */
  complete: boolean;
  usage: ChatUsage | null;
  cost: { usdMicros: number; diemMicros: number };
  /** The HTTP status the client got (200 for a stream that started). */
  status: number;
  /** The error the client saw, if any (in-band ones included). */
  error: string | null;
  refusal: { plugin: string; reason: string } | null;
  /** The plugins' notes as the ledger row recorded them (`ctx.notes`). */
  notes: Readonly<Record<string, string>>;
  timings: { totalMs: number; upstreamMs: number | null; firstByteMs: number | null };
}

/**
 * A plugin: a `svc_parameters` option and its hooks, in the order the pipeline calls them
 * (transformRequest, respond, the upstream call, transformResponse or transformStream,
 * settlement, onSettled). `Params` is what its hooks read in `ctx.params`, `Options` in `ctx.options`.
 */
export interface Plugin<Params = Record<string, unknown>, Options = Record<string, unknown>> {
  /** Unique name: it names the plugin in errors, refusals, metrics and the config. */
  name: string;
  /** TypeBox properties this plugin adds to `svc_parameters` (each optional, with a default). */
  parameters?: TProperties;
  /** Parameter names accepted as model suffixes (`model:key=value`); defaults to none. */
  suffixKeys?: string[];
  /** TypeBox properties of the operator's options (config `plugins[].options`), validated at start with defaults applied. */
  options?: TProperties;
  /** A check of the options beyond their schema, run at start: a message stops the start naming the plugin (exit 2). */
  validateOptions?(options: Options): string | null;
  /** Whether the plugin does anything for this request (synchronous and cheap); inactive plugins cost nothing else. */
  isActive(ctx: PluginContext<Params, Options>): boolean;
  /** Changes the upstream request; may throw `refuse(...)`. */
  transformRequest?(req: ChatRequest, ctx: PluginContext<Params, Options>): void | Promise<void>;
  /** Answers instead of the upstream (the request as it would go upstream); null lets the call go on. May throw `refuse(...)`. */
  respond?(req: ChatRequest, ctx: PluginContext<Params, Options>): PluginAnswer | null | Promise<PluginAnswer | null>;
  /** A chunk transform; its presence turns off zero-copy streaming for the request. It may throw `refuse(...)` mid-stream. */
  transformStream?(ctx: PluginContext<Params, Options>): ChunkTransformer;
  /** Changes a non-streaming response; may throw `refuse(...)` (the answer is withheld, the upstream's cost charged). */
  transformResponse?(body: ChatCompletion, ctx: PluginContext<Params, Options>): ChatCompletion | Promise<ChatCompletion>;
  /** Sees the request's outcome after settlement, off the response's path (never delays or fails the response). */
  onSettled?(outcome: SettledOutcome, ctx: PluginContext<Params, Options>): void | Promise<void>;
}

/** A plugin as the pipeline holds it, whatever its parameters and options. */
// The hooks take the context of any plugin: method syntax keeps typed plugins assignable here.
export type AnyPlugin = Plugin;

/** A plugin whose `parameters` and `options` keep their TypeBox types (for typed clients and the config check). */
export type DefinedPlugin<P extends TProperties, O extends TProperties> = Omit<AnyPlugin, 'parameters' | 'options'> & {
  parameters: P;
  options: O;
};

/**
 * Declares a plugin with `ctx.params` typed from its own `parameters` and `ctx.options`
 * from its `options` (TypeBox properties), so no hook casts. The pipeline validated both
 * (the request against the composed schema, the options at start), so the typing holds.
 */
export function definePlugin<P extends TProperties = {}, O extends TProperties = {}>(
  plugin: Plugin<Static<TObject<P>>, Static<TObject<O>>> & { parameters?: P; options?: O; suffixKeys?: (keyof P & string)[] },
): DefinedPlugin<P, O> {
  return { ...plugin, parameters: plugin.parameters ?? ({} as P), options: plugin.options ?? ({} as O) } as unknown as DefinedPlugin<P, O>;
}
