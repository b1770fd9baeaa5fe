import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { failedStart, freePort, serverEnv } from '../helpers/svc-process';

// Each way `bun src/index.ts` can fail to start, as an operator meets it: one line on stderr
// naming the cause and the fix, exit 2 when something must be changed, 1 when a dependency
// is unreachable. Postgres cases need DATABASE_URL (the shared server; nothing is changed on it).
const dir = mkdtempSync(join(tmpdir(), 'svc-startup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const PG = process.env.DATABASE_URL;

let n = 0;
/** A fresh data directory and free port for one start. */
const fresh = (extra: Record<string, string> = {}) => {
  const dataDir = join(dir, `d${n++}`);
  return { dataDir, env: serverEnv({ PORT: String(freePort()), SVC_DATA_DIR: dataDir, ...extra }) };
};

/** The last line of stderr: the failure itself (step lines may come before it). */
const lastLine = (stderr: string) => stderr.trim().split('\n').at(-1) ?? '';

function withDatabase(url: string, name: string, user?: string) {
  const u = new URL(url);
  u.pathname = `/${name}`;
  if (user) u.username = user;
  return u.toString();
}

describe('a start that fails says why in one line', () => {
  test('Postgres not listening: exit 1, refused, with host and port', async () => {
    const port = freePort();
    const { code, stderr } = await failedStart(fresh({ DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/svc` }).env);
    expect(code).toBe(1);
    expect(lastLine(stderr)).toBe(
      `svc: cannot start: Postgres at 127.0.0.1:${port} refused the connection (nothing listens there): start Postgres, or fix the host and port in DATABASE_URL`,
    );
    expect(stderr).not.toContain('Failed query');
    expect(stderr).not.toContain('    at ');
  }, 60_000);

  test.skipIf(!PG)(
    'a database that does not exist: exit 2 and the createdb to run',
    async () => {
      const u = new URL(PG!);
      const url = withDatabase(PG!, 'svc_no_such_database');
      const { code, stderr } = await failedStart(fresh({ DATABASE_URL: url }).env);
      expect(code).toBe(2);
      expect(lastLine(stderr)).toContain(`database "svc_no_such_database" does not exist on Postgres at ${u.hostname}:${u.port || '5432'}`);
      expect(lastLine(stderr)).toContain(
        `createdb -h ${u.hostname} -p ${u.port || '5432'} -U ${u.username || 'postgres'} svc_no_such_database`,
      );
    },
    60_000,
  );

  test.skipIf(!PG)(
    'a user the server refuses: exit 2, authentication failed',
    async () => {
      const url = withDatabase(PG!, new URL(PG!).pathname.slice(1), 'svc_no_such_role');
      const { code, stderr } = await failedStart(fresh({ DATABASE_URL: url }).env);
      expect(code).toBe(2);
      expect(lastLine(stderr)).toMatch(
        /^svc: cannot start: Postgres at \S+ refused user "svc_no_such_role": authentication failed \(.+\): fix the user and password in DATABASE_URL/,
      );
    },
    60_000,
  );

  test('Redis not listening: exit 1, named, before the embedded database is created', async () => {
    const port = freePort();
    const { dataDir, env } = fresh({ REDIS_URL: `redis://127.0.0.1:${port}` });
    const { code, stderr } = await failedStart(env);
    expect(code).toBe(1);
    expect(lastLine(stderr)).toMatch(
      new RegExp(`^svc: cannot start: Redis at 127\\.0\\.0\\.1:${port} is unreachable \\(.+\\): start Redis, or fix REDIS_URL`),
    );
    expect(existsSync(join(dataDir, 'pglite'))).toBe(false);
  }, 60_000);

  test('a port in use: exit 2, checked before the embedded database is created', async () => {
    const taken = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
    try {
      const { dataDir, env } = fresh({ PORT: String(taken.port) });
      const { code, stderr } = await failedStart(env);
      expect(code).toBe(2);
      expect(lastLine(stderr)).toStartWith(`svc: cannot start: 127.0.0.1:${taken.port} is already in use`);
      expect(existsSync(join(dataDir, 'pglite'))).toBe(false);
    } finally {
      taken.stop(true);
    }
  }, 60_000);

  test('a data directory another live process holds: exit 2, its pid and the way out', async () => {
    const { dataDir, env } = fresh();
    mkdirSync(dataDir, { recursive: true });
    // This test process is alive: the lock is not stale.
    writeFileSync(join(dataDir, 'svc.lock.json'), JSON.stringify({ pid: process.pid, url: null, startedAt: new Date().toISOString() }));
    const { code, stderr } = await failedStart(env);
    expect(code).toBe(2);
    expect(lastLine(stderr)).toBe(
      `svc: cannot start: the embedded database in ${dataDir} is held by a running svc (pid ${process.pid}). Stop it first, or give this instance its own SVC_DATA_DIR.`,
    );
  }, 60_000);

  test('a configuration error: exit 2, the field named', async () => {
    const { code, stderr } = await failedStart(fresh({ PORT: 'eighty' }).env);
    expect(code).toBe(2);
    expect(lastLine(stderr)).toStartWith('svc: configuration error: ');
    expect(lastLine(stderr)).toContain('"port"');
  }, 60_000);
});
