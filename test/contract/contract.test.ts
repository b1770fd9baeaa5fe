import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

// CI runs the contract suite (contract/) the way an operator would: against freshly started
// svc processes over the network, on each backend, and once more through a proxy that breaks
// one header, to show the suite fails and names the operation.

const ROOT = new URL('../..', import.meta.url).pathname;
const BUN = process.execPath;
const KEY = /svc_[A-Za-z0-9_-]{43}/;

/** A free TCP port on 127.0.0.1. */
function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() });
  const port = s.port as number;
  s.stop(true);
  return port;
}

/** A running svc process and its bootstrap ADMIN key. */
interface Svc {
  baseUrl: string;
  key: string;
  stop(): Promise<void>;
}

/** Starts `bun src/index.ts` with `env` and waits for its first-start key (stdout or stderr). */
async function startSvc(env: Record<string, string>): Promise<Svc> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-contract-'));
  const port = freePort();
  const config = join(dir, 'svc.config.yaml');
  // The guard off, so every generated bad-input case runs, unpaced (--abuse-max-failures 0):
  // against a deployment with the guard the suite paces a sample of them under its limit.
  writeFileSync(config, 'abuseGuard:\n  enabled: false\n');
  const child = Bun.spawn([BUN, 'src/index.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      SVC_DATA_DIR: join(dir, 'data'),
      SVC_CONFIG: config,
      SVC_LOG_LEVEL: 'warn',
      // Stopped at the end of the suite: no load balancer to drain for.
      SVC_SHUTDOWN_DRAIN_SECONDS: '0',
      ...env,
    },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  let seen = '';
  const read = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) seen += new TextDecoder().decode(chunk);
  };
  void read(child.stdout as ReadableStream<Uint8Array>);
  void read(child.stderr as ReadableStream<Uint8Array>);
  const baseUrl = `http://127.0.0.1:${port}/api/v1`;
  const deadline = Date.now() + 150_000; // a first PGlite start takes ~6 s, far longer on a loaded machine
  while (Date.now() < deadline) {
    const key = KEY.exec(seen)?.[0];
    const up =
      key &&
      (await fetch(`${baseUrl}/models`).then(
        (r) => r.ok,
        () => false,
      ));
    if (key && up)
      return { baseUrl, key, stop: async () => (child.kill(), await child.exited, rmSync(dir, { recursive: true, force: true })) };
    if (child.exitCode !== null) break;
    await Bun.sleep(200);
  }
  child.kill();
  throw new Error(`svc did not start: ${seen.slice(-2000)}`);
}

/**
 * Runs `npm run contract` (contract/run.ts) against `baseUrl`, telling it the instance has no
 * abuse guard, so the whole set runs; returns its exit code and output.
 */
async function runContract(baseUrl: string, key: string, flags: string[]): Promise<{ code: number; output: string }> {
  const child = Bun.spawn([BUN, 'contract/run.ts', '--abuse-max-failures', '0', ...flags], {
    cwd: ROOT,
    env: { ...process.env, SVC_BASE_URL: baseUrl, SVC_API_KEY: key },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code: await child.exited, output: out + err };
}

/** The failing lines of a run, for the assertion message. */
const failures = (output: string) =>
  output
    .split('\n')
    .filter((l) => l.startsWith('(fail)') || l.includes('error:'))
    .slice(0, 30)
    .join('\n');

const REFERENCE = join(ROOT, 'contract', 'reference', 'openapi-20260709.yaml');
const referenceFlags = (await Bun.file(REFERENCE).exists()) ? ['--reference', REFERENCE] : [];

describe('the contract suite against fresh instances', () => {
  const started: Svc[] = [];
  afterAll(async () => {
    for (const s of started) await s.stop();
  });

  // Embedded means no DATABASE_URL or REDIS_URL, even when CI exports them for the other variant.
  const EMBEDDED = { DATABASE_URL: '', REDIS_URL: '' };

  test('embedded (PGlite + memory): npm run contract -- --write passes', async () => {
    const svc = await startSvc(EMBEDDED);
    started.push(svc);
    const run = await runContract(svc.baseUrl, svc.key, ['--write', ...referenceFlags]);
    expect(run.code === 0 ? '' : failures(run.output)).toBe('');
    // What --write with the operator key adds ran, not skipped: the scratch account's lifecycle and the generated multipart cases.
    expect(run.output).not.toContain('contract: skipped scratch account');
    // The whole generated set ran, and the table after the run has a row per operation.
    expect(run.output).toMatch(/contract: bad input: all \d+ generated cases ran \(no abuse guard\)/);
    expect(run.output).toMatch(/\neditImage \(multipart\) +[1-9]\d* +0 /);
    for (const ran of [/\(pass\).*deleteScratchAccount: everything goes/, /\(pass\).*editImage \(multipart\): prompt missing/])
      expect(run.output).toMatch(ran);
  }, 300_000);

  test('a proxy that drops x-svc-version from /models and the field from the 400s of /image/edit makes it fail, naming both operations', async () => {
    const svc = started[0] ?? (await startSvc(EMBEDDED));
    const target = new URL(svc.baseUrl);
    const proxy = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(req) {
        const url = new URL(req.url);
        const res = await fetch(`${target.origin}${url.pathname}${url.search}`, {
          method: req.method,
          headers: req.headers,
          body: req.method === 'GET' ? undefined : await req.arrayBuffer(),
        });
        const headers = new Headers(res.headers);
        headers.delete('content-encoding');
        headers.delete('content-length');
        if (url.pathname.endsWith('/models')) headers.delete('x-svc-version');
        // An error body that names no field: a 400 in the right shape, but useless to a client.
        if (url.pathname.endsWith('/image/edit') && res.status === 400)
          return new Response(JSON.stringify({ error: 'Bad request' }), { status: 400, headers });
        return new Response(await res.arrayBuffer(), { status: res.status, headers });
      },
    });
    try {
      const run = await runContract(`http://127.0.0.1:${proxy.port}/api/v1`, svc.key, []);
      expect(run.code).not.toBe(0);
      expect(run.output).toMatch(/\(fail\).*listModels/);
      expect(run.output).toMatch(/\(fail\).*editImage \(multipart\): prompt missing/);
      expect(run.output).toMatch(/\nlistModels +\d+ +[1-9]/);
    } finally {
      proxy.stop(true);
    }
  }, 300_000);

  const external = process.env.DATABASE_URL && process.env.REDIS_URL;
  test.if(Boolean(external))(
    'Postgres + Redis: npm run contract -- --write passes',
    async () => {
      const admin = process.env.DATABASE_URL as string;
      const name = `svc_contract_${randomBytes(5).toString('hex')}`;
      const sql = postgres(admin, { max: 1, onnotice: () => {} });
      await sql.unsafe(`CREATE DATABASE ${name}`);
      const url = new URL(admin);
      url.pathname = `/${name}`;
      const svc = await startSvc({ DATABASE_URL: url.toString(), REDIS_URL: process.env.REDIS_URL as string });
      try {
        const run = await runContract(svc.baseUrl, svc.key, ['--write', ...referenceFlags]);
        expect(run.code === 0 ? '' : failures(run.output)).toBe('');
      } finally {
        await svc.stop();
        await sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await sql.end();
      }
    },
    180_000,
  );
});
