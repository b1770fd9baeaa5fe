import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, parseConfig } from '../../src/config';

const dir = mkdtempSync(join(tmpdir(), 'svc-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string) {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('config', () => {
  test('defaults serve /api/v1 on 8080 with embedded storage', () => {
    const c = parseConfig({});
    expect(c).toMatchObject({ port: 8080, basePath: '/api/v1', dataDir: './data', bootstrapCreditUsd: '100', providers: [], models: [] });
    expect(c.databaseUrl).toBeUndefined();
  });

  test('a bad value names the field', () => {
    expect(() => parseConfig({ port: 'eighty' })).toThrow(/invalid field "port"/);
    expect(() => parseConfig({ models: [{ id: 'm', type: 'hologram', routes: [{ provider: 'p' }], pricing: {} }] })).toThrow(
      /invalid field "models\.0\.type"/,
    );
    expect(() => parseConfig({ bootstrapCreditUsd: '1e9' })).toThrow(ConfigError);
  });

  test('reads the YAML file and lets env win', () => {
    const path = file(
      'ok.yaml',
      `port: 9000
systemPrompt: from file
providers:
  - id: up
    kind: openai-compatible
    baseURL: http://127.0.0.1:1/v1
models:
  - id: my-model
    type: text
    tier: XS
    routes: [{ provider: up, model: upstream-name }]
    pricing: { input: 0.1, output: "0.2" }
`,
    );
    const c = loadConfig({ SVC_CONFIG: path, PORT: '9100', REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(c.port).toBe(9100);
    expect(c.systemPrompt).toBe('from file');
    expect(c.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(c.models[0]?.routes[0]).toEqual({ provider: 'up', model: 'upstream-name', weight: 1 });
    expect(c.providers[0]?.timeoutMs).toBe(120_000);
  });

  test('a bad file or a missing SVC_CONFIG path fails with its name', () => {
    expect(() => loadConfig({ SVC_CONFIG: file('list.yaml', '- a\n- b\n') })).toThrow(/top level must be a mapping/);
    expect(() => loadConfig({ SVC_CONFIG: join(dir, 'missing.yaml') })).toThrow(/file not found/);
    expect(() => loadConfig({ SVC_CONFIG: file('bad.yaml', 'logLevel: loud\n') })).toThrow(/bad\.yaml:1: invalid field "logLevel"/);
  });

  test('env values are typed before validation', () => {
    expect(loadConfig({ SVC_CONFIG: '', SVC_ALLOW_PRIVATE_URLS: 'true', SVC_MAX_BODY_BYTES: '2048' })).toMatchObject({
      allowPrivateUrls: true,
      maxBodyBytes: 2048,
    });
    expect(() => loadConfig({ SVC_CONFIG: '', SVC_MAX_BODY_BYTES: 'lots' })).toThrow(/maxBodyBytes/);
  });
});
