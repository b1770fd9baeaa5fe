import { Type as T, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { existsSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { didYouMean, firstViolation, unknownField, type ConfigIssue } from './config-fields';
import { SIMULATOR_PROVIDER } from './models/default-catalog';
import { ModelConfigSchema } from './models/schema';
import { ProviderConfigSchema } from './models/provider-config';

/**
 * The provider kinds that build a model provider (providers/registry.ts BUILDERS). A kind
 * outside this list would start and then fail every request, so the config refuses it.
 */
export const PROVIDER_KINDS = ['openai-compatible', 'simulator', 'media-jobs'] as const;

/** Rate-limit, billing and search settings are grouped so the config file reads like the README. */
export const ConfigSchema = T.Object({
  port: T.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  host: T.String({ default: '0.0.0.0' }),
  basePath: T.String({ default: '/api/v1', pattern: '^/' }),
  /** External base URL (sign-in domain checks, x402 resource URLs); unset means http://localhost:<listen port>. */
  publicUrl: T.Optional(T.String({ pattern: '^https?://', description: 'External base URL, used for SIWE domain checks' })),
  dataDir: T.String({ default: './data' }),
  databaseUrl: T.Optional(T.String({ minLength: 1 })),
  redisUrl: T.Optional(T.String({ minLength: 1 })),
  /** A stream whose upstream sends nothing for this long ends with an in-band error (charged for what was forwarded). */
  streamIdleTimeoutMs: T.Integer({ minimum: 1_000, default: 60_000 }),
  /** Request bodies larger than this are refused with 413: a declared length before the body is read, a chunked body once it passes it. */
  maxBodyBytes: T.Integer({ minimum: 1024, default: 32 * 1024 * 1024 }),
  /** A request body not received in full within this time (from the start of its read) is refused with 408. */
  bodyTimeoutMs: T.Integer({ minimum: 100, default: 30_000 }),
  /** Starting USD credit of the bootstrap account, in whole dollars or decimals ("100", "12.5"). */
  bootstrapCreditUsd: T.String({ pattern: '^\\d+(\\.\\d{1,6})?$', default: '100' }),
  /** The service default system prompt (include_svc_system_prompt). */
  systemPrompt: T.String({ default: 'You are a helpful assistant.' }),
  /** Characters and reviews loaded (idempotently) at start; a missing file loads nothing. */
  charactersFile: T.String({ default: './seed/characters.yaml' }),
  /** Allow user-supplied URLs (images, scraping) to reach loopback and private ranges. */
  allowPrivateUrls: T.Boolean({ default: false }),
  logLevel: T.Union([T.Literal('debug'), T.Literal('info'), T.Literal('warn'), T.Literal('error'), T.Literal('silent')], {
    default: 'info',
  }),
  /** One log line per request (method, route, status, duration, request id, account, model, tokens). */
  accessLog: T.Boolean({ default: true }),
  /** Serve GET /metrics (Prometheus text format). */
  metrics: T.Boolean({ default: true }),
  /** When set, GET /metrics requires `Authorization: Bearer <metricsToken>`. */
  metricsToken: T.Optional(T.String({ minLength: 16 })),
  /** On SIGTERM/SIGINT, how long open streams may run on before they are ended in-band and settled. */
  shutdownGraceSeconds: T.Integer({ minimum: 0, maximum: 3600, default: 30 }),
  /** Secret for signing short-lived tokens (web3 key tokens). Generated per process when unset. */
  tokenSecret: T.Optional(T.String({ minLength: 16 })),
  providers: T.Array(ProviderConfigSchema, { default: [] }),
  models: T.Array(ModelConfigSchema, { default: [] }),
  /** Model traits: trait name -> model id, per model type. */
  traits: T.Record(T.String(), T.Record(T.String(), T.String()), { default: {} }),
  /** Compatibility mapping: foreign model id -> svc model id, per model type. */
  compatibilityMapping: T.Record(T.String(), T.Record(T.String(), T.String()), { default: {} }),
  /** Free-form sections owned by later stages (search, rate limits, wallets); each validates its own part. */
  search: T.Optional(T.Record(T.String(), T.Unknown())),
  rateLimits: T.Optional(T.Record(T.String(), T.Unknown())),
  abuseGuard: T.Optional(T.Record(T.String(), T.Unknown())),
  billing: T.Optional(T.Record(T.String(), T.Unknown())),
  /** Redis timeouts and reconnection (src/kv/redis-config.ts). */
  redis: T.Optional(T.Record(T.String(), T.Unknown())),
  wallets: T.Optional(T.Record(T.String(), T.Unknown())),
  images: T.Optional(T.Record(T.String(), T.Unknown())),
  /** Media jobs (video, async audio): the runner and where finished media is stored (src/jobs/config.ts). */
  jobs: T.Optional(T.Record(T.String(), T.Unknown())),
});

/** The validated service configuration. */
export type Config = Static<typeof ConfigSchema>;

/** Thrown at start when the config is invalid; its message names the offending field. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const ENV_KEYS: Record<string, { key: keyof Config; kind: 'string' | 'int' | 'bool' }> = {
  PORT: { key: 'port', kind: 'int' },
  HOST: { key: 'host', kind: 'string' },
  SVC_BASE_PATH: { key: 'basePath', kind: 'string' },
  SVC_PUBLIC_URL: { key: 'publicUrl', kind: 'string' },
  SVC_DATA_DIR: { key: 'dataDir', kind: 'string' },
  DATABASE_URL: { key: 'databaseUrl', kind: 'string' },
  REDIS_URL: { key: 'redisUrl', kind: 'string' },
  SVC_MAX_BODY_BYTES: { key: 'maxBodyBytes', kind: 'int' },
  SVC_BODY_TIMEOUT_MS: { key: 'bodyTimeoutMs', kind: 'int' },
  SVC_STREAM_IDLE_TIMEOUT_MS: { key: 'streamIdleTimeoutMs', kind: 'int' },
  SVC_BOOTSTRAP_CREDIT_USD: { key: 'bootstrapCreditUsd', kind: 'string' },
  SVC_SYSTEM_PROMPT: { key: 'systemPrompt', kind: 'string' },
  SVC_CHARACTERS_FILE: { key: 'charactersFile', kind: 'string' },
  SVC_ALLOW_PRIVATE_URLS: { key: 'allowPrivateUrls', kind: 'bool' },
  SVC_LOG_LEVEL: { key: 'logLevel', kind: 'string' },
  SVC_TOKEN_SECRET: { key: 'tokenSecret', kind: 'string' },
  SVC_ACCESS_LOG: { key: 'accessLog', kind: 'bool' },
  SVC_METRICS: { key: 'metrics', kind: 'bool' },
  SVC_METRICS_TOKEN: { key: 'metricsToken', kind: 'string' },
  SVC_SHUTDOWN_GRACE_SECONDS: { key: 'shutdownGraceSeconds', kind: 'int' },
};

function envValue(raw: string, kind: 'string' | 'int' | 'bool'): unknown {
  if (kind === 'int') return /^-?\d+$/.test(raw) ? Number(raw) : raw;
  if (kind === 'bool') return raw === 'true' || raw === '1' ? true : raw === 'false' || raw === '0' ? false : raw;
  return raw;
}

function readConfigFile(path: string): Record<string, unknown> {
  const text = readFileSync(path, 'utf8');
  const parsed: unknown = parseYaml(text);
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError(`${path}: the top level must be a mapping`);
  return parsed as Record<string, unknown>;
}

/** Validates `value` against `schema` after defaults: unknown fields first (a typo also looks like a missing field), then values. */
function validated<S extends TSchema>(schema: S, raw: unknown, source: string, prefix: (string | number)[]): Static<S> {
  const value = Value.Default(schema, Value.Clone(raw ?? {}));
  const unknown = unknownField(schema, value, prefix);
  if (unknown) throw new ConfigError(`${source}: unknown field "${unknown.path}"${unknown.hint}`);
  const bad = firstViolation(schema, value);
  if (bad) throw configError(source, { ...bad, path: [...prefix, bad.path].filter((p) => p !== '(root)').join('.') || '(root)' });
  return value as Static<S>;
}

const configError = (source: string, issue: ConfigIssue) => new ConfigError(`${source}: invalid field "${issue.path}": ${issue.message}`);

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
 * Validates one free-form section of the config (`search`, `wallets`, `rateLimits`, ...)
 * against the schema its owner declares, applying defaults; throws ConfigError naming the
 * bad or unknown field as `<section>.<path>`, so a broken section stops the start.
 */
export function parseConfigSection<S extends TSchema>(schema: S, raw: unknown, section: string): Static<S> {
  return validated(schema, raw, 'config', [section]);
}

/**
 * Loads the config: the optional YAML file (SVC_CONFIG, else ./svc.config.yaml), then
 * environment variables on top. Env wins so one file can serve several deployments.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const path = env.SVC_CONFIG ?? './svc.config.yaml';
  if (env.SVC_CONFIG && !existsSync(path)) throw new ConfigError(`SVC_CONFIG: file not found: ${path}`);
  const raw = existsSync(path) ? readConfigFile(path) : {};
  for (const [name, { key, kind }] of Object.entries(ENV_KEYS)) {
    const value = env[name];
    if (value !== undefined && value !== '') raw[key] = envValue(value, kind);
  }
  // The one nested setting with a variable: each container sets its own ledger journal.
  if (env.SVC_LEDGER_JOURNAL_DIR)
    raw.billing = { ...(raw.billing as Record<string, unknown> | undefined), journalDir: env.SVC_LEDGER_JOURNAL_DIR };
  return parseConfig(raw, existsSync(path) ? path : 'environment');
}
