import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A redis-server this test owns, on its own port, stopped and started by PID (never the shared one). */
export interface OwnRedis {
  port: number;
  url: string;
  /** Starts (or restarts) the server; resolves once it answers PING. */
  start(): Promise<void>;
  /** Kills the server (SIGKILL: a crash, so a non-persistent one loses its data). */
  stop(): Promise<void>;
  /** Freezes / thaws the server: the socket stays open but nothing answers. */
  pause(): void;
  resume(): void;
  /** Stops it and removes its directory. */
  dispose(): Promise<void>;
}

const cli = (port: number, ...args: string[]) => spawnSync('redis-cli', ['-p', String(port), ...args], { encoding: 'utf8' }).stdout.trim();

async function waitFor(check: () => boolean, what: string, ms = 10_000) {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/** Whether a TCP port on 127.0.0.1 can be bound now. */
function bindable(port: number): boolean {
  try {
    Bun.listen({ hostname: '127.0.0.1', port, socket: { data() {} } }).stop(true);
    return true;
  } catch {
    return false;
  }
}

/**
 * `n` free ports for this test's own Redis servers, each with its cluster bus port (+10000)
 * free too: fixed ports collided when two checkouts ran the suite at once.
 */
export function freeRedisPorts(n: number): number[] {
  const ports: number[] = [];
  while (ports.length < n) {
    const port = 20000 + Math.floor(Math.random() * 10000);
    if (!ports.includes(port) && bindable(port) && bindable(port + 10000)) ports.push(port);
  }
  return ports;
}

/** A non-persistent redis-server on `port` (no RDB, no AOF), with extra arguments (cluster mode). */
export function ownRedis(port: number, extra: string[] = []): OwnRedis {
  const dir = mkdtempSync(join(tmpdir(), `svc-redis-${port}-`));
  let child: ChildProcess | null = null;
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...extra];
  const self: OwnRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      if (cli(port, 'ping') === 'PONG') throw new Error(`port ${port} already has a Redis that this test does not own`);
      child = spawn('redis-server', args, { stdio: 'ignore' });
      await waitFor(() => cli(port, 'ping') === 'PONG', `redis on ${port}`);
    },
    async stop() {
      const c = child;
      child = null;
      if (!c || c.exitCode !== null) return;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGCONT');
      c.kill('SIGKILL');
      await exited;
    },
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    async dispose() {
      await self.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return self;
}

/**
 * The Redis a test runs on: REDIS_URL's (a single Redis, or a cluster in CI's second pass) when
 * set, else one of its own on a free port, started here; `own` is that one, for `dispose`.
 */
export async function sharedOrOwnRedis(): Promise<{ url: string; own: OwnRedis | null }> {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, own: null };
  const own = ownRedis(freeRedisPorts(1)[0]!);
  await own.start();
  return { url: own.url, own };
}

/** A Redis Cluster of masters on `ports` (no replicas), each its own process. */
export async function ownRedisCluster(ports: number[]): Promise<{ url: string; nodes: OwnRedis[]; dispose(): Promise<void> }> {
  const nodes = ports.map((p) =>
    ownRedis(p, ['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${p}.conf`, '--cluster-node-timeout', '2000']),
  );
  for (const n of nodes) await n.start();
  const created = spawnSync(
    'redis-cli',
    ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'],
    {
      encoding: 'utf8',
    },
  );
  if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
  await waitFor(() => ports.every((p) => cli(p, 'cluster', 'info').includes('cluster_state:ok')), 'cluster_state:ok');
  return {
    url: nodes[0]!.url,
    nodes,
    async dispose() {
      for (const n of nodes) await n.dispose();
    },
  };
}

/** DBSIZE of the Redis on `port` (to see where keys went). */
export const dbSize = (port: number) => Number(cli(port, 'dbsize'));
