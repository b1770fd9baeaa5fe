import { Type as T, type Static } from '@sinclair/typebox';
import { existsSync, readFileSync } from 'node:fs';
import { LineCounter, parseDocument } from 'yaml';
import { ConfigError, configError, didYouMean, validated } from './config-fields';
import { SIMULATOR_PROVIDER } from './models/default-catalog';
import { ModelConfigSchema } from './models/schema';
import { ProviderConfigSchema } from './models/provider-config';

// Section parsers import these from here; they live below config.ts so providers can use them too.
export { ConfigError, parseConfigSection } from './config-fields';

/**
 * The provider kinds that build a model provider (providers/registry.ts BUILDERS). A kind
 * outside this list would start and then fail every request, so the config refuses it.
 */
export const PROVIDER_KINDS = ['openai-compatible', 'anthropic', 'gemini', 'simulator', 'media-jobs'] as const;

/** The service configuration's schema: the file's top level (sections are validated by their owners). */
export const ConfigSchema = T.Object({
  port: T.Integer({ minimum: 0, maximum: 65535, default: 8080, description: 'Listen port (0: any free port)' }),
  host: T.String({ default: '0.0.0.0', description: 'Listen address' }),
  basePath: T.String({ default: '/api/v1', pattern: '^/', description: 'Prefix of every API route' }),
  publicUrl: T.Optional(
    T.String({
      pattern: '^https?://',
      description: 'External base URL (wallet sign-in domain checks, x402 resource URLs); unset: http://localhost:<listen port>',
    }),
  ),
  dataDir: T.String({ default: './data', description: 'Folder of the embedded database (PGlite) and the data lock' }),
  databaseUrl: T.Optional(T.String({ minLength: 1, description: 'Postgres instead of the embedded database' })),
  databaseTimeoutMs: T.Integer({
    minimum: 100,
    default: 1_500,
    description:
      'Postgres: the deadline of every database call (a statement, a connection, a transaction start); past it the request answers 503',
  }),
  redisUrl: T.Optional(T.String({ minLength: 1, description: 'Redis (single or Cluster) instead of in-memory limits and holds' })),
  streamIdleTimeoutMs: T.Integer({
    minimum: 1_000,
    default: 60_000,
    description: 'A stream whose upstream sends nothing for this long ends with an in-band error (charged for what was forwarded)',
  }),
  maxBodyBytes: T.Integer({
    minimum: 1024,
    default: 32 * 1024 * 1024,
    description: 'Larger request bodies get 413: a declared length before the body is read, a chunked body once it passes it',
  }),
  bodyTimeoutMs: T.Integer({ minimum: 100, default: 30_000, description: 'A request body not received in full within this time gets 408' }),
  uploadBudgetBytes: T.Integer({
    minimum: 1024 * 1024,
    default: 256 * 1024 * 1024,
    description:
      'Bytes of request bodies of 64 KiB or more (uploads) one instance holds at once; a body that does not fit gets 503 with Retry-After',
  }),
  bootstrapCreditUsd: T.String({
    pattern: '^\\d+(\\.\\d{1,6})?$',
    default: '100',
    description: 'Starting USD credit of the bootstrap account ("100", "12.5")',
  }),
  systemPrompt: T.String({
    default: 'You are a helpful assistant.',
    description: 'The service default system prompt (include_svc_system_prompt)',
  }),
  charactersFile: T.String({
    default: './seed/characters.yaml',
    description: 'Characters and reviews loaded (idempotently) at start; a missing file loads nothing',
  }),
  allowPrivateUrls: T.Boolean({
    default: false,
    description: 'Let user-supplied URLs (images, scraping) reach loopback and private ranges',
  }),
  logLevel: T.Union([T.Literal('debug'), T.Literal('info'), T.Literal('warn'), T.Literal('error'), T.Literal('silent')], {
    default: 'info',
    description: 'Least severe log level written (JSON lines on stdout)',
  }),
  accessLog: T.Boolean({
    default: true,
    description: 'One log line per request (method, route, status, duration, request id, account, model, tokens)',
  }),
  metrics: T.Boolean({ default: true, description: 'Serve GET /metrics (Prometheus text format)' }),
  metricsToken: T.Optional(
    T.String({
      minLength: 1,
      description: 'When set, GET /metrics requires `Authorization: Bearer <metricsToken>` (16 characters or more, not a placeholder)',
    }),
  ),
  shutdownGraceSeconds: T.Integer({
    minimum: 0,
    maximum: 3600,
    default: 30,
    description: 'After the listener closes, how long open streams may run on before they are ended in-band and settled',
  }),
  shutdownDrainSeconds: T.Integer({
    minimum: 0,
    maximum: 600,
    default: 15,
    description:
      "On SIGTERM, how long the listener keeps serving with readiness at 503 before it closes (longer than the load balancer's check interval); SIGINT skips it",
  }),
  idleCollectMb: T.Integer({
    minimum: 0,
    default: 32,
    description:
      'When RSS has grown this many MB since the last collection and the process has been quiet for 2 s, run a full garbage collection so the memory goes back to the OS; 0: off',
  }),
  reusePort: T.Boolean({
    default: false,
    description: 'Let another process listen on the same port (the kernel splits connections); off, a taken port stops the start',
  }),
  tokenSecret: T.Optional(
    T.String({
      minLength: 1,
      description:
        'Signs short-lived tokens and cursors; the same on every instance (32 characters or more, not a placeholder; unset: one random secret shared through the KV store)',
    }),
  ),
  allowWeakSecrets: T.Boolean({
    default: false,
    description: 'Start even when a secret is a known placeholder or too short (a warning at every start); never in production',
  }),
  providers: T.Array(ProviderConfigSchema, { default: [], description: 'Upstreams (docs/providers.md); none: the built-in simulator' }),
  models: T.Array(ModelConfigSchema, { default: [], description: 'The model catalog; none: the default catalog on the simulator' }),
  traits: T.Record(T.String(), T.Record(T.String(), T.String()), {
    default: {},
    description: 'Model traits: trait name -> model id, per model type',
  }),
  compatibilityMapping: T.Record(T.String(), T.Record(T.String(), T.String()), {
    default: {},
    description: 'Foreign model id -> svc model id, per model type',
  }),
  plugins: T.Optional(
    T.Array(T.Record(T.String(), T.Unknown()), {
      description:
        'The plugins in the order they run: built-ins by `name` (`enabled: false` turns one off), packages by `package` (npm name or path), each with its `options` (docs/plugins.md)',
    }),
  ),
  pluginTimeoutMs: T.Integer({
    minimum: 1,
    default: 30_000,
    description: "A plugin hook's time budget; past it the request fails naming the plugin (an entry's own `timeoutMs` wins)",
  }),
  pluginStoreMaxBytes: T.Integer({
    minimum: 0,
    default: 64 * 1024 * 1024,
    description: "Memory the plugins' key-value stores may hold in one process without Redis (least recently used evicted)",
  }),
  pluginStoreRedisUrl: T.Optional(
    T.String({
      minLength: 1,
      description:
        "A Redis of the plugins' stores' own (e.g. a cache Redis with an LRU eviction policy), instead of `redisUrl`; connected on first use, and while it is away the plugins' store calls fail (the cache bypasses)",
    }),
  ),
  // Sections owned by later stages, each validated by its owner's schema (src/config-sections.ts).
  search: T.Optional(T.Record(T.String(), T.Unknown(), { description: 'Web search and scraping engines' })),
  rateLimits: T.Optional(T.Record(T.String(), T.Unknown(), { description: 'Rate-limit tables and overrides' })),
  abuseGuard: T.Optional(T.Record(T.String(), T.Unknown(), { description: 'The abuse guard' })),
  billing: T.Optional(T.Record(T.String(), T.Unknown(), { description: 'Metering, the ledger writer and its journal' })),
  redis: T.Optional(T.Record(T.String(), T.Unknown(), { description: 'Redis timeouts and reconnection' })),
  wallets: T.Optional(T.Record(T.String(), T.Unknown(), { description: 'Wallet sign-in, web3 keys and x402 payments' })),
  images: T.Optional(T.Record(T.String(), T.Unknown(), { description: 'Image safety classifier' })),
  rpc: T.Optional(
    T.Record(T.String(), T.Unknown(), { description: 'Crypto JSON-RPC networks, node URLs, method allow-lists and credits' }),
  ),
  augment: T.Optional(
    T.Record(T.String(), T.Unknown(), { description: 'The augment endpoints: blocked scrape hosts, text parser limits and price' }),
  ),
  jobs: T.Optional(
    T.Record(T.String(), T.Unknown(), { description: 'Media jobs (video, async audio): the runner and where finished media is stored' }),
  ),
  responses: T.Optional(T.Record(T.String(), T.Unknown(), { description: 'Stored responses of the Responses API and their retention' })),
  observability: T.Optional(
    T.Record(T.String(), T.Unknown(), {
      description: 'The request log (retention, batches), the spend series per key and account, and OpenTelemetry tracing',
    }),
  ),
});

/** The validated service configuration. */
export type Config = Static<typeof ConfigSchema>;

/** The environment variables that set top-level fields (they win over the file). */
export const ENV_KEYS: Record<string, { key: keyof Config; kind: 'string' | 'int' | 'bool' }> = {
  PORT: { key: 'port', kind: 'int' },
  HOST: { key: 'host', kind: 'string' },
  SVC_BASE_PATH: { key: 'basePath', kind: 'string' },
  SVC_PUBLIC_URL: { key: 'publicUrl', kind: 'string' },
  SVC_DATA_DIR: { key: 'dataDir', kind: 'string' },
  DATABASE_URL: { key: 'databaseUrl', kind: 'string' },
  SVC_DATABASE_TIMEOUT_MS: { key: 'databaseTimeoutMs', kind: 'int' },
  REDIS_URL: { key: 'redisUrl', kind: 'string' },
  SVC_PLUGIN_STORE_REDIS_URL: { key: 'pluginStoreRedisUrl', kind: 'string' },
  SVC_MAX_BODY_BYTES: { key: 'maxBodyBytes', kind: 'int' },
  SVC_BODY_TIMEOUT_MS: { key: 'bodyTimeoutMs', kind: 'int' },
  SVC_UPLOAD_BUDGET_BYTES: { key: 'uploadBudgetBytes', kind: 'int' },
  SVC_STREAM_IDLE_TIMEOUT_MS: { key: 'streamIdleTimeoutMs', kind: 'int' },
  SVC_BOOTSTRAP_CREDIT_USD: { key: 'bootstrapCreditUsd', kind: 'string' },
  SVC_SYSTEM_PROMPT: { key: 'systemPrompt', kind: 'string' },
  SVC_CHARACTERS_FILE: { key: 'charactersFile', kind: 'string' },
  SVC_ALLOW_PRIVATE_URLS: { key: 'allowPrivateUrls', kind: 'bool' },
  SVC_LOG_LEVEL: { key: 'logLevel', kind: 'string' },
  SVC_TOKEN_SECRET: { key: 'tokenSecret', kind: 'string' },
  SVC_ALLOW_WEAK_SECRETS: { key: 'allowWeakSecrets', kind: 'bool' },
  SVC_ACCESS_LOG: { key: 'accessLog', kind: 'bool' },
  SVC_METRICS: { key: 'metrics', kind: 'bool' },
  SVC_METRICS_TOKEN: { key: 'metricsToken', kind: 'string' },
  SVC_SHUTDOWN_GRACE_SECONDS: { key: 'shutdownGraceSeconds', kind: 'int' },
  SVC_SHUTDOWN_DRAIN_SECONDS: { key: 'shutdownDrainSeconds', kind: 'int' },
  SVC_REUSE_PORT: { key: 'reusePort', kind: 'bool' },
  SVC_IDLE_COLLECT_MB: { key: 'idleCollectMb', kind: 'int' },
};

function envValue(raw: string, kind: 'string' | 'int' | 'bool'): unknown {
  if (kind === 'int') return /^-?\d+$/.test(raw) ? Number(raw) : raw;
  if (kind === 'bool') return raw === 'true' || raw === '1' ? true : raw === 'false' || raw === '0' ? false : raw;
  return raw;
}

/** A config file read: its values, and where each field is written (for error messages). */
interface ConfigFile {
  raw: Record<string, unknown>;
  /** The 1-based line of a dotted field path, when the file holds it. */
  lineOf(field: string): number | undefined;
}

function readConfigFile(path: string, env: Record<string, string | undefined>): ConfigFile {
  const lines = new LineCounter();
  const doc = parseDocument(readFileSync(path, 'utf8'), { lineCounter: lines });
  const broken = doc.errors[0];
  if (broken) {
    const at = broken.linePos?.[0];
    throw new ConfigError(`${path}${at ? `:${at.line}:${at.col}` : ''}: not valid YAML: ${broken.message.split('\n')[0]}`);
  }
  const parsed: unknown = doc.toJS();
  const lineOf = (field: string) => {
    const node = doc.getIn(field.split('.'), true) as { range?: [number, number, number] } | undefined;
    return node?.range ? lines.linePos(node.range[0]).line : undefined;
  };
  if (parsed === null || parsed === undefined) return { raw: {}, lineOf };
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError(`${path}: the top level must be a mapping`);
  return { raw: withEnvironment(parsed as Record<string, unknown>, env, path, []) as Record<string, unknown>, lineOf };
}

/**
 * Replaces `${NAME}` (or `${NAME:-fallback}`) in the file's string values with the
 * environment's, so secrets such as `apiKey: ${OPENAI_API_KEY}` stay out of the file. A
 * variable that is unset, with no fallback, stops the start naming the field and the variable.
 */
function withEnvironment(value: unknown, env: Record<string, string | undefined>, path: string, at: (string | number)[]): unknown {
  if (typeof value === 'string')
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      const field = at.join('.');
      throw new ConfigError(`${path}: field "${field}" names the environment variable ${name}, which is not set`, field);
    });
  if (Array.isArray(value)) return value.map((v, i) => withEnvironment(v, env, path, [...at, i]));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withEnvironment(v, env, path, [...at, k])]));
  return value;
}

/** Provider kinds exist and every model route names a configured provider. */
function checkReferences(config: Config, source: string) {
  config.providers.forEach((p, i) => {
    if (!(PROVIDER_KINDS as readonly string[]).includes(p.kind))
      throw configError(source, {
        path: `providers.${i}.kind`,
        message: `unknown provider kind "${p.kind}"; known kinds: ${PROVIDER_KINDS.join(', ')}${didYouMean(p.kind, PROVIDER_KINDS)}`,
      });
  });
  // With no providers configured, the built-in simulator serves (src/boot.ts effectiveProviders).
  const ids = config.providers.length === 0 ? [SIMULATOR_PROVIDER.id] : config.providers.map((p) => p.id);
  config.models.forEach((m, i) =>
    m.routes.forEach((r, j) => {
      if (!ids.includes(r.provider))
        throw configError(source, {
          path: `models.${i}.routes.${j}.provider`,
          message: `model "${m.id}" routes to unknown provider "${r.provider}"; configured providers: ${ids.join(', ')}${didYouMean(r.provider, ids)}`,
        });
    }),
  );
}

/** Validates a raw config object, applying defaults; throws ConfigError naming the first unknown or bad field. */
export function parseConfig(raw: Record<string, unknown>, source = 'config'): Config {
  const config = validated(ConfigSchema, raw, source, []);
  checkReferences(config, source);
  return config;
}

/**
 * Loads the config: the optional YAML file (SVC_CONFIG, else ./svc.config.yaml), with
 * `${VAR}` references filled from the environment, then environment variables on top. Env
 * wins so one file can serve several deployments. `checkSections` validates the sections
 * their owners parse later (billing, limits, wallets, ...), so that every mistake stops the
 * start before anything is opened; an error names the file's line where it can.
 */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  checkSections: (config: Config) => void = () => {},
): Config {
  const path = env.SVC_CONFIG ?? './svc.config.yaml';
  if (env.SVC_CONFIG && !existsSync(path)) throw new ConfigError(`SVC_CONFIG: file not found: ${path}`);
  const file = existsSync(path) ? readConfigFile(path, env) : null;
  try {
    return loadedConfig(file?.raw ?? {}, env, file ? path : 'environment', checkSections);
  } catch (error) {
    const line = error instanceof ConfigError && error.field && !setByEnvironment(error.field, env) && file?.lineOf(error.field);
    if (!line) throw error;
    throw new ConfigError(error.message.replace(`${path}: `, `${path}:${line}: `), error.field);
  }
}

/** Whether the environment, not the file, gave the top-level field of `field`. */
function setByEnvironment(field: string, env: Record<string, string | undefined>): boolean {
  const top = field.split('.')[0];
  return Object.entries(ENV_KEYS).some(([name, { key }]) => key === top && env[name] !== undefined && env[name] !== '');
}

function loadedConfig(
  raw: Record<string, unknown>,
  env: Record<string, string | undefined>,
  source: string,
  checkSections: (config: Config) => void,
): Config {
  for (const [name, { key, kind }] of Object.entries(ENV_KEYS)) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[key] = envValue(value, kind);
  }
  // The one nested setting with a variable: each container sets its own ledger journal.
  if (env.SVC_LEDGER_JOURNAL_DIR)
    raw.billing = { ...(raw.billing as Record<string, unknown> | undefined), journalDir: env.SVC_LEDGER_JOURNAL_DIR };
  const config = parseConfig(raw, source);
  try {
    checkSections(config);
  } catch (error) {
    // Section parsers name their source 'config'; say which file it was.
    if (error instanceof ConfigError) throw new ConfigError(error.message.replace(/^config: /, `${source}: `), error.field);
    throw error;
  }
  return config;
}
