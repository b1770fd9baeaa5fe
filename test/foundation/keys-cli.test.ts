import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findKeyByHash, hashSecret } from '../../src/auth/api-keys';
import { openPglite } from '../../src/db/open';

const root = join(import.meta.dir, '..', '..');
const dataDir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function run(args: string[]) {
  return Bun.spawn([process.execPath, 'src/cli/keys-create.ts', ...args], {
    cwd: root,
    env: { ...process.env, SVC_DATA_DIR: dataDir, SVC_CONFIG: '', DATABASE_URL: '' },
    stdout: 'pipe',
    stderr: 'pipe',
  });
}

test('keys:create prints a working key of the requested type once', async () => {
  const proc = run(['--type', 'INFERENCE']);
  expect(await proc.exited).toBe(0);
  const secret = /svc_[A-Za-z0-9_-]{43}/.exec(await new Response(proc.stdout).text())?.[0];
  expect(secret).toBeDefined();
  const storage = await openPglite({ dataDir: `${dataDir}/pglite` });
  try {
    const key = await findKeyByHash(storage.db, hashSecret(secret!));
    expect(key?.type).toBe('INFERENCE');
  } finally {
    await storage.close();
  }
}, 30_000);

test('keys:create refuses an unknown type', async () => {
  const proc = run(['--type', 'ROOT']);
  expect(await proc.exited).toBe(2);
  expect(await new Response(proc.stderr).text()).toContain('usage');
});
