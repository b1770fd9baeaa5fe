import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { scratchDatabase } from '../helpers/backends';

// Two real svc processes on one Postgres and Redis behind a real Caddy running the shipped
// deploy/Caddyfile, under steady load; each instance is stopped with SIGTERM and started again
// in turn. Not one request may fail: the drain keeps the listener serving with /ready at 503
// (Caddy's active check takes the instance out) and `Connection: close` on every answer.
const root = join(import.meta.dir, '..', '..');
const CADDY = Bun.which('caddy');
const EXTERNAL = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
if (!CADDY) console.warn('rolling-restart: skipped, caddy is not installed (.ci/run installs it)');
if (!EXTERNAL) console.warn('rolling-restart: skipped, two instances need DATABASE_URL and REDIS_URL');

const DRAIN_SECONDS = 3;

/** A free loopback port (the instance must come back on the same one). */
function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

interface Child {
  proc: ReturnType<typeof Bun.spawn>;
  stdout: string;
  stderr: string;
}

function spawnLogged(cmd: string[], env: Record<string, string | undefined>): Child {
  const proc = Bun.spawn(cmd, { cwd: root, env, stdout: 'pipe', stderr: 'pipe' });
  const child: Child = { proc, stdout: '', stderr: '' };
  const collect = async (stream: ReadableStream<Uint8Array>, key: 'stdout' | 'stderr') => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) child[key] += decoder.decode(chunk, { stream: true });
  };
  void collect(proc.stdout as ReadableStream<Uint8Array>, 'stdout');
  void collect(proc.stderr as ReadableStream<Uint8Array>, 'stderr');
  return child;
}

async function until(what: string, probe: () => Promise<boolean> | boolean, ms = 30_000) {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

const answers = (url: string, status: number) => () =>
  fetch(url).then(
    (r) => r.status === status,
    () => false,
  );

describe.skipIf(!CADDY || !EXTERNAL)('a rolling restart behind the shipped Caddyfile', () => {
  let dir: string;
  let upstream: FixtureUpstream;
  let db: Awaited<ReturnType<typeof scratchDatabase>>;
  let caddy: Child;
  const ports = [freePort(), freePort()];
  const instances: Child[] = [];
  const lbPort = freePort();
  const lb = `http://127.0.0.1:${lbPort}`;
  let env: Record<string, string | undefined>;
  let key = '';

  const startInstance = (i: number) => {
    instances[i] = spawnLogged([process.execPath, 'src/index.ts'], { ...env, PORT: String(ports[i]) });
    return until(`instance ${i} ready`, answers(`http://127.0.0.1:${ports[i]}/ready`, 200));
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-rolling-'));
    upstream = startUpstream('roll');
    db = await scratchDatabase(process.env.DATABASE_URL!);
    const config = join(dir, 'svc.yaml');
    writeFileSync(
      config,
      JSON.stringify({
        providers: [fixtureProvider('up', upstream.url)],
        models: [fixtureModel('roll-model', ['up'])],
        rateLimits: {
          standard: {
            text: { XS: { rpm: 1e6, tpm: 1e9 }, S: { rpm: 1e6, tpm: 1e9 }, M: { rpm: 1e6, tpm: 1e9 }, L: { rpm: 1e6, tpm: 1e9 } },
          },
        },
      }),
    );
    env = {
      ...process.env,
      HOST: '127.0.0.1',
      SVC_CONFIG: config,
      DATABASE_URL: db.url,
      SVC_LOG_LEVEL: 'info',
      SVC_SHUTDOWN_DRAIN_SECONDS: String(DRAIN_SECONDS),
      SVC_SHUTDOWN_GRACE_SECONDS: '5',
      SVC_TOKEN_SECRET: 'rolling-restart-shared-secret-of-32-chars',
    };
    // The first start on the empty database creates the ADMIN key (stderr); the second shares it.
    await startInstance(0);
    key = /svc_[A-Za-z0-9_-]{43}/.exec(instances[0]!.stderr)![0];
    await startInstance(1);
    caddy = spawnLogged([CADDY!, 'run', '--config', 'deploy/Caddyfile', '--adapter', 'caddyfile'], {
      ...process.env,
      SVC_LISTEN: `127.0.0.1:${lbPort}`,
      SVC_UPSTREAMS: ports.map((p) => `127.0.0.1:${p}`).join(' '),
      CADDY_ADMIN: `127.0.0.1:${freePort()}`,
      XDG_DATA_HOME: dir,
      XDG_CONFIG_HOME: dir,
    });
    await until('caddy serving', answers(`${lb}/ready`, 200));
  }, 90_000);

  afterAll(async () => {
    caddy?.proc.kill('SIGKILL');
    for (const child of instances) child?.proc.kill('SIGKILL');
    await Promise.all(instances.map((c) => c?.proc.exited));
    await upstream?.close();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('each instance restarted in turn under steady load: 0 failed requests', async () => {
    const failures: string[] = [];
    const served = [0, 0];
    let total = 0;
    let running = true;
    const chat = JSON.stringify({ model: 'roll-model', messages: [{ role: 'user', content: 'hello' }], max_tokens: 4 });
    const worker = async (n: number) => {
      for (let i = 0; running; i++) {
        const res =
          (n + i) % 2 === 0
            ? await fetch(`${lb}/api/v1/models`).catch((e: Error) => e)
            : await fetch(`${lb}/api/v1/chat/completions`, {
                method: 'POST',
                headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
                body: chat,
              }).catch((e: Error) => e);
        total++;
        if (res instanceof Error) failures.push(`${res.name}: ${res.message}`);
        else {
          const body = await res.text();
          if (res.status !== 200) failures.push(`${res.status} ${body.slice(0, 200)}`);
        }
      }
    };
    const load = Array.from({ length: 8 }, (_, n) => worker(n));

    for (const i of [0, 1]) {
      await Bun.sleep(1_000);
      const direct = `http://127.0.0.1:${ports[i]}`;
      const stopping = instances[i]!;
      stopping.proc.kill('SIGTERM');
      // Draining: readiness is 503 at once, and the instance still answers, closing each connection.
      await until(`instance ${i} draining`, answers(`${direct}/ready`, 503), 2_000);
      const during = await fetch(`${direct}/api/v1/models`);
      expect(during.status).toBe(200);
      expect(during.headers.get('connection')).toBe('close');
      expect(await stopping.proc.exited).toBe(0);
      expect(stopping.stdout).toContain('shutdown: draining');
      served[i] = stopping.stdout.split('\n').filter((l) => l.includes('"path":"/api/v1/')).length;
      await startInstance(i);
      // Back in Caddy's rotation after its next health check.
      await Bun.sleep(1_500);
    }
    running = false;
    await Promise.all(load);

    expect(failures).toEqual([]);
    expect(total).toBeGreaterThan(200);
    // Both instances carried traffic before their restart.
    expect(served[0]).toBeGreaterThan(0);
    expect(served[1]).toBeGreaterThan(0);
  }, 120_000);
});
