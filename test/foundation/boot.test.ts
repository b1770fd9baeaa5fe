import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dir, '..', '..');
const dataDir = mkdtempSync(join(tmpdir(), 'svc-boot-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Starts `bun src/index.ts` like `npm start` does, on a free port, and reads its output. */
async function start(env: Record<string, string>) {
  const proc = Bun.spawn([process.execPath, 'src/index.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: '0',
      SVC_DATA_DIR: dataDir,
      SVC_LOG_LEVEL: 'info',
      SVC_CONFIG: '',
      // Killed when done: no load balancer to drain for.
      SVC_SHUTDOWN_DRAIN_SECONDS: '0',
      DATABASE_URL: '',
      REDIS_URL: '',
      ...env,
    },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  let out = '';
  // The first-start banner (the key) goes to stderr, apart from the JSON log on stdout.
  const err = { text: '' };
  void (async () => {
    for await (const chunk of proc.stderr) err.text += new TextDecoder().decode(chunk);
  })();
  const reader = proc.stdout.getReader();
  const deadline = Date.now() + 20_000;
  while (!out.includes('svc listening') && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  // Give the stderr pipe the moment it may lag behind stdout.
  await Bun.sleep(100);
  return { proc, out, err: err.text };
}

describe('npm start', () => {
  test('first start prints an ADMIN key once and serves the API', async () => {
    const { proc, out, err } = await start({});
    try {
      const key = /svc_[A-Za-z0-9_-]{43}/.exec(err)?.[0];
      expect(key).toBeDefined();
      expect(out).not.toContain(key!);
      const url = /"url":"(http:\/\/localhost:\d+\/api\/v1)"/.exec(out)?.[1];
      expect(url).toBeDefined();
      const res = await fetch(`${url}/models`, { headers: { authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('cf-ray')).toBeTruthy();
      expect(res.headers.get('x-svc-version')).toMatch(/^\d{8}\.\d{6}$/);
      expect(res.headers.get('date')).toBeTruthy();
      expect((await fetch(`${url}/models`, { headers: { authorization: 'Bearer svc_nope' } })).status).toBe(401);
      const yaml = await fetch(`${url}/openapi.yaml`);
      expect(await yaml.text()).toStartWith('openapi: 3.');
    } finally {
      proc.kill();
      await proc.exited;
    }
    const again = await start({});
    try {
      expect(again.out + again.err).not.toMatch(/svc_[A-Za-z0-9_-]{43}/);
    } finally {
      again.proc.kill();
      await again.proc.exited;
    }
  }, 60_000);

  test('a bad config stops the start with the field named', async () => {
    const proc = Bun.spawn([process.execPath, 'src/index.ts'], {
      cwd: root,
      env: { ...process.env, SVC_CONFIG: '', PORT: 'not-a-port', SVC_DATA_DIR: dataDir },
      stderr: 'pipe',
    });
    expect(await proc.exited).toBe(2);
    expect(await new Response(proc.stderr).text()).toContain('invalid field "port"');
  });
});
