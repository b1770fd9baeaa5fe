import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { stringify } from 'yaml';
import { startChild, withTimeout, type Child } from '../lib/proc';
import { benchConfig } from './svc-config';

/** A running svc under test, with the ADMIN key it printed and its cleanup. */
export interface SvcUnderTest {
  child: Child;
  url: string;
  key: string;
  backend: string;
  /** The fresh database svc runs on (redis+postgres), or null. */
  databaseUrl: string | null;
  close(): Promise<void>;
}

/** Creates a fresh database on the server of `databaseUrl`; returns its URL and a drop function. */
export async function freshDatabase(databaseUrl: string) {
  const name = `svc_bench_${process.pid}_${Date.now()}`;
  const admin = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
      await admin.end({ timeout: 2 });
    },
  };
}

/** Environment for svc from `SVC_ENV='K=V,K=V'` (debug switches for a bench run). */
export function svcEnvFromProcess(): Record<string, string> {
  return Object.fromEntries(
    (process.env.SVC_ENV ?? '')
      .split(',')
      .filter(Boolean)
      .map((kv) => kv.split('=') as [string, string]),
  );
}

/**
 * Starts `bun src/index.ts` as a child with a generated config in a temp dir, reads the
 * bootstrap ADMIN key from its stdout and waits until /models answers.
 * BUN_CONFIG_MAX_HTTP_REQUESTS goes into the child's environment: Bun reads it at process
 * start, so the assignment in src/index.ts comes too late (the bench verifies this).
 */
export async function startSvc(opts: {
  port: number;
  upstreamUrl: string;
  /** The media-jobs upstream (bench/servers/upstream-jobs.ts): adds the video model of the families phase. */
  jobsUrl?: string;
  backend: 'memory+pglite' | 'redis+postgres';
  maxHttpRequests?: string | null;
  extraArgs?: string[];
  /** Where to run `src/index.ts` from (another checkout, for before/after runs); the current directory by default. */
  cwd?: string;
  /** Extra environment for svc (debug switches). */
  env?: Record<string, string>;
  /** The Redis of redis+postgres (a private one, bench/lib/private-redis.ts); REDIS_URL by default. */
  redisUrl?: string;
  /** Sections merged over the bench config (`{ billing: { flushSliceMs: 1 } }`). */
  config?: Record<string, unknown>;
}): Promise<SvcUnderTest> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const configPath = join(dir, 'svc.config.yaml');
  writeFileSync(configPath, stringify({ ...benchConfig(opts.upstreamUrl, opts.jobsUrl), ...opts.config }));
  const db = opts.backend === 'redis+postgres' ? await freshDatabase(process.env.DATABASE_URL!) : null;
  const env: Record<string, string | undefined> = {
    PORT: String(opts.port),
    HOST: '127.0.0.1',
    SVC_CONFIG: configPath,
    SVC_DATA_DIR: join(dir, 'data'),
    SVC_LOG_LEVEL: 'warn',
    SVC_BOOTSTRAP_CREDIT_USD: '1000000000',
    // The bench stops svc between phases; it has no load balancer to drain for.
    SVC_SHUTDOWN_DRAIN_SECONDS: '0',
    DATABASE_URL: db?.url ?? '',
    REDIS_URL: opts.backend === 'redis+postgres' ? (opts.redisUrl ?? process.env.REDIS_URL) : '',
    BUN_CONFIG_MAX_HTTP_REQUESTS: opts.maxHttpRequests === null ? undefined : (opts.maxHttpRequests ?? '65535'),
    ...opts.env,
  };
  const child = startChild(`svc(${opts.backend})`, [process.execPath, ...(opts.extraArgs ?? []), 'src/index.ts'], env, opts.cwd);
  const cleanup = async () => {
    await child.stop();
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const [, key] = await child.waitFor(/^\s+(svc_\S+)\s*$/, 60_000);
    const url = `http://127.0.0.1:${opts.port}/api/v1`;
    await withTimeout('svc readiness', 30_000, waitReady(`${url}/models`));
    return { child, url, key: key!, backend: opts.backend, databaseUrl: db?.url ?? null, close: cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

async function waitReady(url: string) {
  for (;;) {
    const ok = await fetch(url)
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) return;
    await Bun.sleep(100);
  }
}
