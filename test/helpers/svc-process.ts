import { join } from 'node:path';

/** The repository root, where `bun src/index.ts` runs. */
export const ROOT = join(import.meta.dir, '..', '..');

/** A free loopback port (taken and released at once). */
export function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/** A spawned process whose output is collected as it arrives. */
export interface SvcProcess {
  proc: ReturnType<typeof Bun.spawn>;
  stdout: string;
  stderr: string;
}

/** Spawns `cmd` (default: the server, `bun src/index.ts`) in the repository root with exactly `env`. */
export function spawnSvc(env: Record<string, string | undefined>, cmd: string[] = [process.execPath, 'src/index.ts']): SvcProcess {
  const proc = Bun.spawn(cmd, { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' });
  const child: SvcProcess = { proc, stdout: '', stderr: '' };
  const collect = async (stream: ReadableStream<Uint8Array>, key: 'stdout' | 'stderr') => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) child[key] += decoder.decode(chunk, { stream: true });
  };
  void collect(proc.stdout as ReadableStream<Uint8Array>, 'stdout');
  void collect(proc.stderr as ReadableStream<Uint8Array>, 'stderr');
  return child;
}

/** Runs the server with `env` until it exits (a start-up that must fail); its code and stderr. */
export async function failedStart(env: Record<string, string | undefined>): Promise<{ code: number; stderr: string }> {
  const proc = Bun.spawn([process.execPath, 'src/index.ts'], { cwd: ROOT, env, stdout: 'ignore', stderr: 'pipe' });
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr as ReadableStream<Uint8Array>).text()]);
  return { code, stderr };
}

/** Polls `probe` every 50 ms until it holds; throws naming `what` after `ms`. */
export async function until(what: string, probe: () => Promise<boolean> | boolean, ms = 30_000) {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/** Whether `url` answers `status` now (false when nothing listens). */
export const answers = (url: string, status: number) => () =>
  fetch(url).then(
    (r) => r.status === status,
    () => false,
  );

/**
 * The environment of a server that reads nothing of the caller's: no config file, no
 * Postgres or Redis unless given, logs at info (the test preload silences them).
 */
export function serverEnv(extra: Record<string, string>): Record<string, string | undefined> {
  return {
    ...process.env,
    HOST: '127.0.0.1',
    SVC_CONFIG: '',
    DATABASE_URL: '',
    REDIS_URL: '',
    SVC_LOG_LEVEL: 'info',
    SVC_SHUTDOWN_DRAIN_SECONDS: '0',
    SVC_SHUTDOWN_GRACE_SECONDS: '1',
    ...extra,
  };
}
