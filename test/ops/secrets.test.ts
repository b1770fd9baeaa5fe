import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { checkConfigSections } from '../../src/config-sections';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { answers, failedStart, freePort, serverEnv, spawnSvc, until } from '../helpers/svc-process';

// Secrets that would start svc on a published value: the shipped placeholders, values too
// short to be secret. Refused at start (exit 2), unless the operator says otherwise, and then
// said loudly at every start.
const dir = mkdtempSync(join(tmpdir(), 'svc-secrets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const PLACEHOLDER = 'change-me-to-32-random-characters';

let n = 0;
const env = (extra: Record<string, string>) => serverEnv({ PORT: String(freePort()), SVC_DATA_DIR: join(dir, `d${n++}`), ...extra });

describe('weak secrets', () => {
  test('the shipped SVC_TOKEN_SECRET placeholder stops the start (exit 2) and says how to make one', async () => {
    const { code, stderr } = await failedStart(env({ SVC_TOKEN_SECRET: PLACEHOLDER }));
    expect(code).toBe(2);
    const line = stderr.trim().split('\n').at(-1)!;
    expect(line).toStartWith('svc: configuration error: weak secrets: tokenSecret (SVC_TOKEN_SECRET) is a published placeholder.');
    expect(line).toContain('openssl rand -hex 24');
    expect(line).toContain('SVC_ALLOW_WEAK_SECRETS=true');
  }, 60_000);

  test('a metrics token shorter than 16, a placeholder upstream key and a placeholder database password are each named', async () => {
    const file = join(dir, 'weak.yaml');
    writeFileSync(
      file,
      JSON.stringify({
        providers: [{ ...fixtureProvider('up', 'http://127.0.0.1:1/v1'), apiKey: 'your-gemini-key' }],
        models: [fixtureModel('m', ['up'])],
      }),
    );
    const { code, stderr } = await failedStart(
      env({ SVC_METRICS_TOKEN: 'short', SVC_CONFIG: file, DATABASE_URL: 'postgres://svc:change-me@127.0.0.1:1/svc' }),
    );
    expect(code).toBe(2);
    expect(stderr).toContain('metricsToken (SVC_METRICS_TOKEN) has 5 characters, fewer than 16');
    expect(stderr).toContain('providers.0.apiKey is a placeholder');
    expect(stderr).toContain('the password in databaseUrl (DATABASE_URL) is a placeholder');
  }, 60_000);

  test('SVC_ALLOW_WEAK_SECRETS=true starts anyway, with a warning on stderr and in the log', async () => {
    const port = freePort();
    const child = spawnSvc({ ...env({ SVC_TOKEN_SECRET: PLACEHOLDER, SVC_ALLOW_WEAK_SECRETS: 'true' }), PORT: String(port) });
    try {
      await until('svc ready', answers(`http://127.0.0.1:${port}/ready`, 200), 90_000);
      expect(child.stderr).toContain('svc: WARNING: running with weak secrets because SVC_ALLOW_WEAK_SECRETS is set: tokenSecret');
      await until('the warning in the JSON log', () => child.stdout.includes('running with weak secrets'), 10_000);
      // On 127.0.0.1: the address, and no warning about every interface.
      expect(child.stderr).toContain(`svc: listening on http://127.0.0.1:${port}/api/v1`);
      expect(child.stderr).not.toContain('every interface');
    } finally {
      child.proc.kill('SIGKILL');
      await child.proc.exited;
    }
  }, 120_000);
});

describe('${VAR} in the config file', () => {
  test('fills numeric and boolean fields, typed by the schema, in the top level and in sections', () => {
    const file = join(dir, 'vars.yaml');
    writeFileSync(file, 'port: ${SVC_TEST_PORT}\naccessLog: ${SVC_TEST_FLAG:-false}\nredis: { commandTimeoutMs: "${SVC_TEST_MS}" }\n');
    const config = loadConfig({ SVC_CONFIG: file, SVC_TEST_PORT: '9123', SVC_TEST_MS: '2500' }, checkConfigSections);
    expect(config.port).toBe(9123);
    expect(config.accessLog).toBe(false);
    expect(() => loadConfig({ SVC_CONFIG: file, SVC_TEST_PORT: 'eighty', SVC_TEST_MS: '1' })).toThrow('invalid field "port"');
  });
});
