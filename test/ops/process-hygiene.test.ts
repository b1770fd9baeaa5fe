import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The README's way to run svc (`npm start`) and what an operator meets around it: a SIGTERM
// to npm must stop svc, and a second svc on a taken port must refuse to start.
const root = join(import.meta.dir, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'svc-hygiene-'));
const spawned: ReturnType<typeof Bun.spawn>[] = [];
afterAll(async () => {
  for (const proc of spawned) proc.kill('SIGKILL');
  await Promise.all(spawned.map((p) => p.exited));
  rmSync(dir, { recursive: true, force: true });
});

function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

const env = (port: number, dataDir: string) => ({
  ...process.env,
  PORT: String(port),
  HOST: '127.0.0.1',
  SVC_DATA_DIR: dataDir,
  SVC_CONFIG: '',
  DATABASE_URL: '',
  REDIS_URL: '',
  SVC_LOG_LEVEL: 'info',
  SVC_SHUTDOWN_DRAIN_SECONDS: '0',
});

const answers = (port: number) =>
  fetch(`http://127.0.0.1:${port}/health`).then(
    (r) => r.ok,
    () => false,
  );

async function until(what: string, probe: () => Promise<boolean>, ms = 60_000) {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

describe('the server process', () => {
  test('SIGTERM to `npm start` stops svc itself (no orphan keeps serving)', async () => {
    const port = freePort();
    const npm = Bun.spawn(['npm', 'start', '--silent'], { cwd: root, env: env(port, join(dir, 'a')), stdout: 'ignore', stderr: 'ignore' });
    spawned.push(npm);
    try {
      await until('svc answering', () => answers(port));
      npm.kill('SIGTERM');
      await npm.exited;
      await until('svc stopped', async () => !(await answers(port)), 15_000);
    } finally {
      npm.kill('SIGKILL');
    }
  }, 90_000);

  test('a second svc on a port in use exits 2 and says what to do', async () => {
    const port = freePort();
    const first = Bun.spawn([process.execPath, 'src/index.ts'], {
      cwd: root,
      env: env(port, join(dir, 'b')),
      stdout: 'ignore',
      stderr: 'ignore',
    });
    spawned.push(first);
    try {
      await until('the first svc answering', () => answers(port));
      const second = Bun.spawn([process.execPath, 'src/index.ts'], {
        cwd: root,
        env: env(port, join(dir, 'c')),
        stdout: 'ignore',
        stderr: 'pipe',
      });
      expect(await second.exited).toBe(2);
      const said = await new Response(second.stderr).text();
      expect(said).toContain(`127.0.0.1:${port} is already in use`);
      expect(said).toContain('SVC_REUSE_PORT=true');
    } finally {
      first.kill('SIGKILL');
    }
  }, 120_000);

  test('with SVC_REUSE_PORT=true on both, two svc share one port on purpose', async () => {
    const port = freePort();
    const sharing = (data: string) =>
      Bun.spawn([process.execPath, 'src/index.ts'], {
        cwd: root,
        env: { ...env(port, join(dir, data)), SVC_REUSE_PORT: 'true' },
        stdout: 'pipe',
        stderr: 'ignore',
      });
    const listening = async (proc: ReturnType<typeof sharing>) => {
      let out = '';
      const decoder = new TextDecoder();
      for await (const chunk of proc.stdout as ReadableStream<Uint8Array>) {
        out += decoder.decode(chunk, { stream: true });
        if (out.includes('svc listening')) return true;
      }
      return false;
    };
    const a = sharing('d');
    const b = sharing('e');
    spawned.push(a, b);
    try {
      expect(await listening(a)).toBe(true);
      expect(await listening(b)).toBe(true);
    } finally {
      a.kill('SIGKILL');
      b.kill('SIGKILL');
    }
  }, 120_000);
});
