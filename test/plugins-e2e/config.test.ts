import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { definePlugin, Type } from '@svc/plugin-sdk';
import { ConfigError } from '../../src/config';
import { chosenPlugins } from '../../src/plugin-host/entries';
import { PLUGINS } from '../../plugins';
import { DEFAULT_PROMPT, startPluginWorld } from './setup';

const root = join(import.meta.dir, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'svc-plugins-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const names = (entries: unknown[] | undefined, packages = new Map()) => chosenPlugins(PLUGINS, entries, packages).map((s) => s.plugin.name);

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

const picky = definePlugin({
  name: 'picky',
  options: { level: Type.Integer({ minimum: 1, default: 3 }), pattern: Type.String({ default: 'a' }) },
  validateOptions: (o) => (o.pattern.includes('(') ? `pattern "${o.pattern}" may not hold a group` : null),
  isActive: () => false,
});

describe('the plugins list', () => {
  test('without it the built-ins run in their default order', () => {
    expect(names(undefined)).toEqual(PLUGINS.map((p) => p.name));
  });

  test('unnamed built-ins first in their order, then the list; enabled: false turns one off', () => {
    const order = names([{ name: 'character_slug' }, { name: 'strip_thinking_response', enabled: false }]);
    expect(order.at(-1)).toBe('character_slug');
    expect(order).not.toContain('strip_thinking_response');
    expect(order.slice(0, -1)).toEqual(PLUGINS.map((p) => p.name).filter((n) => n !== 'character_slug' && n !== 'strip_thinking_response'));
  });

  test('a package entry brings its plugins, options validated with defaults', () => {
    const specs = chosenPlugins(PLUGINS, [{ package: './picky', options: { level: 5 } }], new Map([['./picky', [picky]]]));
    expect(specs.at(-1)).toMatchObject({ plugin: { name: 'picky' }, options: { level: 5, pattern: 'a' } });
  });

  test('mistakes name the entry, the plugin and the field', () => {
    const pkg = new Map([['./picky', [picky]]]);
    expect(refusal(() => names([{ name: 'include_svc_system_promt' }]))).toContain(
      'invalid field "plugins.0.name": no built-in plugin "include_svc_system_promt" (did you mean "include_svc_system_prompt"?)',
    );
    expect(refusal(() => names([{ package: './picky', options: { level: 0 } }], pkg))).toBe(
      'config: plugin "picky": invalid field "plugins.0.options.level": Expected integer to be greater or equal to 1',
    );
    expect(refusal(() => names([{ package: './picky', options: { levle: 2 } }], pkg))).toContain(
      'config: plugin "picky": unknown field "plugins.0.options.levle" (did you mean "level"?)',
    );
    expect(refusal(() => names([{ package: './picky', options: { pattern: '(a+)+' } }], pkg))).toBe(
      'config: plugin "picky": invalid field "plugins.0.options": pattern "(a+)+" may not hold a group',
    );
    expect(refusal(() => names([{ name: 'character_slug' }, { name: 'character_slug' }]))).toContain('listed twice');
    expect(refusal(() => names([{ nmae: 'x' }]))).toContain('unknown field "plugins.0.nmae"');
  });
});

describe('a built-in turned off by config', () => {
  test('it does not run, and its parameter leaves the request schema and the OpenAPI description', async () => {
    const w = await startPluginWorld({ config: { plugins: [{ name: 'include_svc_system_prompt', enabled: false }] } });
    try {
      const res = await w.chat({});
      expect(res.status).toBe(200);
      expect(JSON.stringify(w.lastUpstream().messages)).not.toContain(DEFAULT_PROMPT);
      // The echo the reference always carries says what happened: no service prompt.
      expect((await res.json()).svc_parameters.include_svc_system_prompt).toBe(false);
      const doc = JSON.stringify((await (await w.t.request('/openapi.json')).json()).paths['/chat/completions']);
      expect(doc).not.toContain('"include_svc_system_prompt"');
      expect(doc).toContain('"character_slug"');
    } finally {
      await w.close();
    }
  }, 60_000);
});

describe('the server refuses to start on a bad plugin entry (exit 2, before anything is created)', () => {
  const start = (yaml: string) => {
    const file = join(dir, `c-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, `port: 0\n${yaml}`);
    const proc = Bun.spawn([process.execPath, 'src/index.ts'], {
      cwd: root,
      env: { ...process.env, SVC_CONFIG: file, SVC_DATA_DIR: join(dir, 'data'), DATABASE_URL: '', REDIS_URL: '' },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    return { file, proc };
  };

  test('a bad option of a package names the file, the plugin and the field', async () => {
    const { file, proc } = start(`plugins:\n  - package: ${join(root, 'examples/plugin-shout')}\n    options: { suffix: 5 }\n`);
    expect(await proc.exited).toBe(2);
    expect(await new Response(proc.stderr).text()).toBe(
      `svc: configuration error: ${file}: plugin "shout": invalid field "plugins.0.options.suffix": Expected string\n`,
    );
  }, 60_000);

  test('a package that cannot be loaded names it and the reason', async () => {
    const { proc } = start('plugins:\n  - package: ./no-such-plugin\n');
    expect(await proc.exited).toBe(2);
    const said = await new Response(proc.stderr).text();
    expect(said).toContain('invalid field "plugins.0.package": the plugin package "./no-such-plugin" could not be loaded: ');
  }, 60_000);
});
