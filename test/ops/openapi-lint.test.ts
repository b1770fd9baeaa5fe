import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { startTestApp, type TestApp } from '../helpers/app';

// @redocly/cli with its recommended rules on the published description, as CI runs it.
const root = join(import.meta.dir, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'svc-openapi-'));
let t: TestApp;
let yaml = '';

beforeAll(async () => {
  t = await startTestApp();
  yaml = await (await t.request('/openapi.yaml', { key: null })).text();
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Problem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer: string }[];
}

async function lint(text: string): Promise<Problem[]> {
  const file = join(dir, `openapi-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, text);
  const proc = Bun.spawn(
    [join(root, 'node_modules/.bin/redocly'), 'lint', file, '--format=json', '--config', join(root, '.redocly.yaml')],
    {
      cwd: root,
      // No telemetry or update check: CI has no network for them.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      stdout: 'pipe',
      stderr: 'pipe',
    },
  );
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  return (JSON.parse(out) as { problems: Problem[] }).problems;
}

test('redocly lint (recommended) reports 0 errors on /openapi.yaml', async () => {
  const problems = await lint(yaml);
  const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
  expect(errors).toEqual([]);
  // The 4XX rule is a warning in "recommended"; every operation passes it all the same.
  expect(problems.filter((p) => p.ruleId === 'operation-4xx-response')).toEqual([]);
}, 60_000);

test('the lint can fail: a 3.0-style nullable is an error', async () => {
  const doc = parse(yaml) as { components: { schemas: Record<string, unknown> } };
  doc.components.schemas.Broken = { type: 'string', nullable: true };
  const problems = await lint(JSON.stringify(doc));
  expect(problems.some((p) => p.severity === 'error' && p.message.includes('nullable'))).toBe(true);
}, 60_000);

test('every operation declares a 4XX response and uses no nullable', () => {
  const doc = parse(yaml) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(item))
      expect({ op: `${method} ${path}`, has4xx: Object.keys(op.responses).some((c) => c.startsWith('4')) }).toEqual({
        op: `${method} ${path}`,
        has4xx: true,
      });
  expect(yaml).not.toContain('nullable:');
});
