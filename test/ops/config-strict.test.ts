import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseWalletsConfig } from '../../src/auth/wallet-config';
import { parseBillingConfig } from '../../src/billing/config';
import { ConfigError, ConfigSchema, loadConfig, parseConfig } from '../../src/config';
import { parseAbuseGuardConfig } from '../../src/limits/abuse-guard';
import { parseRateLimitsConfig } from '../../src/limits/config';
import { parseSearchConfig } from '../../providers/search/config';
import { startTestApp } from '../helpers/app';
import { rejectionOf } from '../helpers/rejection';

const root = join(import.meta.dir, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'svc-strict-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const model = (extra: Record<string, unknown> = {}) => ({ id: 'm', type: 'text', routes: [{ provider: 'up' }], pricing: {}, ...extra });
const provider = (extra: Record<string, unknown> = {}) => ({
  id: 'up',
  kind: 'openai-compatible',
  baseURL: 'http://127.0.0.1:1/v1',
  ...extra,
});

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('unknown fields are errors naming their path', () => {
  test('at the top level, with a suggestion for a typo', () => {
    expect(refusal(() => parseConfig({ prot: 8080 }))).toBe('config: unknown field "prot" (did you mean "port"?)');
    expect(refusal(() => parseConfig({ databaseURL: 'postgres://x' }))).toContain(
      'unknown field "databaseURL" (did you mean "databaseUrl"?)',
    );
    expect(refusal(() => parseConfig({ frobnicate: true }))).toBe('config: unknown field "frobnicate"');
  });

  test('in models, their routes, pricing and capabilities', () => {
    const base = { providers: [provider()] };
    expect(refusal(() => parseConfig({ ...base, models: [model({ prcing: {} })] }))).toContain(
      'unknown field "models.0.prcing" (did you mean "pricing"?)',
    );
    expect(refusal(() => parseConfig({ ...base, models: [model({ routes: [{ provider: 'up', wieght: 2 }] })] }))).toContain(
      'unknown field "models.0.routes.0.wieght" (did you mean "weight"?)',
    );
    expect(refusal(() => parseConfig({ ...base, models: [model({ pricing: { inptu: 1 } })] }))).toContain(
      '"models.0.pricing.inptu" (did you mean "input"?)',
    );
    expect(refusal(() => parseConfig({ ...base, models: [model({ capabilities: { supportsVison: true } })] }))).toContain(
      '"models.0.capabilities.supportsVison" (did you mean "supportsVision"?)',
    );
  });

  test('in providers, but not inside their free-form options', () => {
    expect(refusal(() => parseConfig({ providers: [provider({ baseUrl: 'http://x' })] }))).toContain(
      '"providers.0.baseUrl" (did you mean "baseURL"?)',
    );
    expect(parseConfig({ providers: [provider({ options: { anything: 1 } })] }).providers[0]?.options).toEqual({ anything: 1 });
  });

  test('in every section, through the section parsers that run at start', () => {
    expect(refusal(() => parseBillingConfig({ billing: { flushIntervalMS: 10 } }))).toContain(
      'unknown field "billing.flushIntervalMS" (did you mean "flushIntervalMs"?)',
    );
    expect(refusal(() => parseBillingConfig({ billing: { paymentOrder: { apikey: ['USD'] } } }))).toContain(
      '"billing.paymentOrder.apikey" (did you mean "apiKey"?)',
    );
    expect(refusal(() => parseWalletsConfig({ wallets: { siwx: { enable: false } } }))).toContain(
      '"wallets.siwx.enable" (did you mean "enabled"?)',
    );
    expect(refusal(() => parseRateLimitsConfig({ standard: { txt: {} } }))).toContain('"rateLimits.standard.txt" (did you mean "text"?)');
    expect(refusal(() => parseAbuseGuardConfig({ maxFailure: 3 }))).toContain('"abuseGuard.maxFailure" (did you mean "maxFailures"?)');
    expect(refusal(() => parseSearchConfig({ scraping: { timeout: 1 } }))).toContain('"search.scraping.timeout"');
  });

  test('a wrong literal lists the allowed values and suggests the closest', () => {
    expect(refusal(() => parseConfig({ logLevel: 'inf' }))).toBe(
      'config: invalid field "logLevel": "inf" is not one of: debug, info, warn, error, silent (did you mean "info"?)',
    );
    expect(refusal(() => parseConfig({ models: [model({ type: 'txt' })], providers: [provider()] }))).toContain('(did you mean "text"?)');
  });

  test('a broken section stops the app from being built', async () => {
    expect((await rejectionOf(startTestApp({ config: { search: { provder: 'brave' } } }))).message).toContain(
      'unknown field "search.provder" (did you mean "provider"?)',
    );
  });
});

describe('references between providers and models', () => {
  test('an unknown provider kind is a configuration error, not a 502 on every request', () => {
    expect(refusal(() => parseConfig({ providers: [provider({ kind: 'openai-compatable' })] }))).toBe(
      'config: invalid field "providers.0.kind": unknown provider kind "openai-compatable"; known kinds: openai-compatible, anthropic, gemini, simulator, media-jobs (did you mean "openai-compatible"?)',
    );
  });

  test('a route to an unknown provider id is a configuration error, not a stack trace', () => {
    expect(refusal(() => parseConfig({ providers: [provider()], models: [model({ routes: [{ provider: 'upp' }] })] }))).toBe(
      'config: invalid field "models.0.routes.0.provider": model "m" routes to unknown provider "upp"; configured providers: up (did you mean "up"?)',
    );
    // With no providers configured, the built-in simulator is the one provider.
    expect(parseConfig({ models: [model({ routes: [{ provider: 'simulator' }] })] }).models).toHaveLength(1);
  });

  test('a model routed to a provider without its capability stops the start with a configuration error', async () => {
    const config = { providers: [provider({ capabilities: ['chat'] })], models: [model({ id: 'emb', type: 'embedding' })] };
    const error = await startTestApp({ config }).then(
      (t) => (t.close(), null),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      'models: model "emb" (embedding) routes to provider "up", which does not serve "embed" (its capabilities: chat)',
    );
  });
});

describe('svc.config.example.yaml', () => {
  const path = join(root, 'svc.config.example.yaml');
  const text = readFileSync(path, 'utf8');

  test('loads, and every section in it validates and builds an app', async () => {
    const config = loadConfig({ SVC_CONFIG: path });
    expect(config.models[0]?.id).toBe('my-model');
    expect(config.providers.map((p) => p.kind)).toEqual(['openai-compatible', 'simulator', 'anthropic', 'gemini']);
    parseBillingConfig(config);
    parseWalletsConfig(config);
    parseRateLimitsConfig(config.rateLimits);
    parseAbuseGuardConfig(config.abuseGuard);
    parseSearchConfig(config.search);
    const { dataDir: _d, databaseUrl: _db, redisUrl: _r, ...rest } = config;
    const t = await startTestApp({ config: { ...rest, logLevel: 'silent' } });
    try {
      expect((await t.request('/models', { key: null })).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  test('mentions every top-level field (a new field must be documented there)', () => {
    for (const key of Object.keys(ConfigSchema.properties)) expect(text).toMatch(new RegExp(`^#? ?${key}:`, 'm'));
  });
});

describe('the server refuses to start on a typo', () => {
  test('exit code 2 and the path of the field on stderr', async () => {
    const file = join(dir, 'typo.yaml');
    writeFileSync(
      file,
      'port: 0\nmodels:\n  - id: m\n    type: text\n    routes: [{ provider: simulator }]\n    pricing: {}\n    capabilties: {}\n',
    );
    const proc = Bun.spawn([process.execPath, 'src/index.ts'], {
      cwd: root,
      env: { ...process.env, SVC_CONFIG: file, SVC_DATA_DIR: join(dir, 'data'), DATABASE_URL: '', REDIS_URL: '' },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    expect(await proc.exited).toBe(2);
    expect(await new Response(proc.stderr).text()).toBe(
      `svc: configuration error: ${file}:7: unknown field "models.0.capabilties" (did you mean "capabilities"?)\n`,
    );
  });

  const start = (file: string, dataDir: string) =>
    Bun.spawn([process.execPath, 'src/index.ts'], {
      cwd: root,
      env: { ...process.env, SVC_CONFIG: file, SVC_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' },
      stdout: 'pipe',
      stderr: 'pipe',
    });

  test('broken YAML: exit 2 with the file, line and column, no stack trace, nothing created', async () => {
    const file = join(dir, 'broken.yaml');
    writeFileSync(file, 'port: 0\nmodels:\n  - id: [unclosed\n');
    const dataDir = join(dir, 'data-broken');
    const proc = start(file, dataDir);
    expect(await proc.exited).toBe(2);
    const said = await new Response(proc.stderr).text();
    expect(said).toMatch(new RegExp(`^svc: configuration error: ${file}:\\d+:\\d+: not valid YAML: `));
    expect(said).not.toContain('    at ');
    expect(existsSync(dataDir)).toBe(false);
  });

  test.each([
    ['billing', 'billing:\n  flushSliceMs: fast\n', 'billing.flushSliceMs', 2],
    ['rateLimits', 'rateLimits:\n  logFlushMs: 1\n', 'rateLimits.logFlushMs', 2],
    ['wallets', 'wallets:\n  siwx:\n    enabeld: true\n', 'wallets.siwx.enabeld', 3],
  ])('a bad %s section stops the start before the database is created, naming its line', async (_section, yaml, field, line) => {
    const file = join(dir, `section-${field}.yaml`);
    writeFileSync(file, `port: 0\n${yaml}`);
    const dataDir = join(dir, `data-${field}`);
    const proc = start(file, dataDir);
    expect(await proc.exited).toBe(2);
    const said = await new Response(proc.stderr).text();
    expect(said).toContain(`svc: configuration error: ${file}:${line + 1}: `);
    expect(said).toContain(field);
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe('environment variables in the file', () => {
  test('${NAME} is filled from the environment, ${NAME:-fallback} falls back, and an unset one names the field', () => {
    const file = join(dir, 'env-refs.yaml');
    writeFileSync(
      file,
      'providers:\n  - id: up\n    kind: openai-compatible\n    baseURL: ${UP_URL:-http://127.0.0.1:1/v1}\n    apiKey: ${UP_KEY}\n',
    );
    const config = loadConfig({ SVC_CONFIG: file, UP_KEY: 'sk-from-env' });
    expect(config.providers[0]).toMatchObject({ baseURL: 'http://127.0.0.1:1/v1', apiKey: 'sk-from-env' });
    expect(loadConfig({ SVC_CONFIG: file, UP_KEY: 'k', UP_URL: 'http://10.0.0.1/v1' }).providers[0]).toMatchObject({
      baseURL: 'http://10.0.0.1/v1',
    });
    const message = refusal(() => loadConfig({ SVC_CONFIG: file }));
    expect(message).toBe(`${file}: field "providers.0.apiKey" names the environment variable UP_KEY, which is not set`);
  });
});
