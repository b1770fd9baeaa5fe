import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { openPglite } from '../../src/db/open';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';

// The real server process (`bun src/index.ts`) on an embedded database: the operator CLI
// next to it, then SIGTERM in the middle of a 60-second stream.
const root = join(import.meta.dir, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'svc-process-'));
const dataDir = join(dir, 'data');
// The test preload silences logs; this server's log is what the tests read.
const env = {
  ...process.env,
  SVC_DATA_DIR: dataDir,
  DATABASE_URL: '',
  REDIS_URL: '',
  SVC_CONFIG: join(dir, 'svc.yaml'),
  SVC_LOG_LEVEL: 'info',
};

let upstream: FixtureUpstream;
let server: ReturnType<typeof Bun.spawn>;
let stdout = '';
let stderr = '';
let api = '';
let adminKey = '';
let accountId = '';

/** Collects a process stream into a string as it arrives. */
async function collect(stream: ReadableStream<Uint8Array>, into: (text: string) => void) {
  const decoder = new TextDecoder();
  for await (const chunk of stream) into(decoder.decode(chunk, { stream: true }));
}

async function until<T>(what: string, probe: () => T | undefined | null, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; stderr: ${stderr}`);
    await Bun.sleep(50);
  }
}

function cli(args: string[], extraEnv: Record<string, string> = {}) {
  const proc = Bun.spawn([process.execPath, 'src/cli/admin.ts', ...args], {
    cwd: root,
    env: { ...env, ...extraEnv },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  return Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
}

const chat = (key: string, body: Record<string, unknown>) =>
  fetch(`${api}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  // 300 tokens at 200 ms: a 60-second stream.
  upstream = startUpstream('slow', { chunkDelayMs: 200, tokens: Array.from({ length: 300 }, (_, i) => ` t${i}`) });
  writeFileSync(
    env.SVC_CONFIG,
    JSON.stringify({
      port: 0,
      host: '127.0.0.1',
      shutdownGraceSeconds: 1,
      shutdownDrainSeconds: 1,
      providers: [fixtureProvider('slow-up', upstream.url, 10_000)],
      models: [fixtureModel('slow-model', ['slow-up'])],
    }),
  );
  server = Bun.spawn([process.execPath, 'src/index.ts'], { cwd: root, env, stdout: 'pipe', stderr: 'pipe' });
  void collect(server.stdout as ReadableStream<Uint8Array>, (t) => (stdout += t));
  void collect(server.stderr as ReadableStream<Uint8Array>, (t) => (stderr += t));
  adminKey = await until('the bootstrap key', () => /svc_[A-Za-z0-9_-]{43}/.exec(stderr)?.[0], 100_000);
  accountId = /Bootstrap account: ([0-9a-f-]{36})/.exec(stderr)![1]!;
  await until('the listening log line', () => stdout.includes('svc listening'));
  api = await until('the lock file', () => {
    const lock = join(dataDir, 'svc.lock.json');
    return existsSync(lock) ? (JSON.parse(readFileSync(lock, 'utf8')) as { url: string | null }).url : null;
  });
}, 120_000);

afterAll(async () => {
  server.kill('SIGKILL');
  await upstream.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('first start', () => {
  test('shows progress and the bootstrap account on stderr, keeping stdout JSON only', () => {
    expect(stderr).toContain('svc: first start: creating the embedded database');
    expect(stderr).toMatch(/applying migrations: done in \d+\.\d s/);
    expect(stderr).toContain(`Bootstrap account: ${accountId}`);
    for (const line of stdout.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
    expect(stdout).not.toContain(adminKey);
  });

  test('a second server on the same data directory refuses to start', async () => {
    const second = Bun.spawn([process.execPath, 'src/index.ts'], { cwd: root, env, stdout: 'pipe', stderr: 'pipe' });
    expect(await second.exited).toBe(2);
    expect(await new Response(second.stderr).text()).toContain(
      `the embedded database in ${dataDir} is held by a running svc (pid ${server.pid}`,
    );
  });
});

describe('operator CLI', () => {
  test('refuses to write into the embedded database the server holds, and says what to do', async () => {
    const [code, out, err] = await cli(['keys', 'create', '--type', 'INFERENCE']);
    expect(code).toBe(3);
    expect(out).toBe('');
    expect(err).toContain('held by a running svc');
    expect(err).toContain('--key or SVC_ADMIN_KEY');
  });

  test('creates a key through the API that the running server accepts at once', async () => {
    const [code, out] = await cli(['keys', 'create', '--type', 'INFERENCE', '--description', 'from the CLI'], { SVC_ADMIN_KEY: adminKey });
    expect(code).toBe(0);
    const secret = /svc_[A-Za-z0-9_-]{43}/.exec(out)?.[0];
    expect(secret).toBeDefined();
    const res = await fetch(`${api}/models`, { headers: { authorization: `Bearer ${secret}` } });
    expect(res.status).toBe(200);
    const [, listed] = await cli(['keys', 'list', '--key', adminKey]);
    expect(JSON.parse(listed).data.map((k: { description: string }) => k.description)).toContain('from the CLI');
  });

  test('lists accounts, credits one and shows the balance', async () => {
    const [, accounts] = await cli(['accounts', 'list'], { SVC_ADMIN_KEY: adminKey });
    expect(JSON.parse(accounts).data.map((a: { id: string }) => a.id)).toContain(accountId);
    const [code, credited] = await cli(['accounts', 'credit', accountId, '2.5', '--notes', 'test'], { SVC_ADMIN_KEY: adminKey });
    expect(code).toBe(0);
    expect(JSON.parse(credited).data).toMatchObject({ accountId, currency: 'USD', amount: 2.5, applied: true, balance: 102.5 });
    const [, balance] = await cli(['balance'], { SVC_ADMIN_KEY: adminKey });
    expect(JSON.parse(balance).balances.usd).toBe(102.5);
  });

  test('creates a scratch account and deletes it; refuses to delete any other account; creates a lasting one', async () => {
    const [code, created] = await cli(['accounts', 'create-scratch', '--description', 'cli scratch'], { SVC_ADMIN_KEY: adminKey });
    expect(code).toBe(0);
    const { data } = JSON.parse(created);
    expect(data).toMatchObject({ scratch: true, displayName: 'cli scratch' });
    const [deleted, out] = await cli(['accounts', 'delete', data.id], { SVC_ADMIN_KEY: adminKey });
    expect(deleted).toBe(0);
    expect(JSON.parse(out).data).toMatchObject({ id: data.id, deleted: { apiKeys: 1 } });
    const res = await fetch(`${api}/billing/balance`, { headers: { authorization: `Bearer ${data.apiKey.apiKey}` } });
    expect(res.status).toBe(401);
    const [refused, , err] = await cli(['accounts', 'delete', accountId], { SVC_ADMIN_KEY: adminKey });
    expect(refused).toBe(1);
    expect(err).toContain('409');
    // A lasting account: its ADMIN key works, and it is never deleted.
    const [lasting, made] = await cli(['accounts', 'create', '--description', 'cli customer'], { SVC_ADMIN_KEY: adminKey });
    expect(lasting).toBe(0);
    const customer = JSON.parse(made).data;
    expect(customer).toMatchObject({ scratch: false, displayName: 'cli customer' });
    expect((await fetch(`${api}/billing/balance`, { headers: { authorization: `Bearer ${customer.apiKey.apiKey}` } })).status).toBe(200);
    expect((await cli(['accounts', 'delete', customer.id], { SVC_ADMIN_KEY: adminKey }))[0]).toBe(1);
  });

  test("sets, shows and clears an account's and a key's guardrails; an unknown name exits 1 naming it", async () => {
    const [code, set] = await cli(['accounts', 'guardrails', accountId, '--set', 'pii, deny_list'], { SVC_ADMIN_KEY: adminKey });
    expect(code).toBe(0);
    expect(JSON.parse(set).data).toEqual({ accountId, guardrails: ['pii', 'deny_list'] });
    const [, shown] = await cli(['accounts', 'guardrails', accountId], { SVC_ADMIN_KEY: adminKey });
    expect(JSON.parse(shown).data.guardrails).toEqual(['pii', 'deny_list']);
    const [, cleared] = await cli(['accounts', 'guardrails', accountId, '--set', ''], { SVC_ADMIN_KEY: adminKey });
    expect(JSON.parse(cleared).data.guardrails).toEqual([]);

    const [, listed] = await cli(['keys', 'list'], { SVC_ADMIN_KEY: adminKey });
    const keyId = JSON.parse(listed).data[0].id as string;
    const [keyCode, keySet] = await cli(['keys', 'guardrails', keyId, '--set', 'limits'], { SVC_ADMIN_KEY: adminKey });
    expect(keyCode).toBe(0);
    expect(JSON.parse(keySet).data).toEqual({ keyId, guardrails: ['limits'] });
    const [refused, , err] = await cli(['keys', 'guardrails', keyId, '--set', 'pii,nope'], { SVC_ADMIN_KEY: adminKey });
    expect(refused).toBe(1);
    expect(err).toContain('guardrails.1: unknown guardrail "nope"');
    await cli(['keys', 'guardrails', keyId, '--set', ''], { SVC_ADMIN_KEY: adminKey });
  });

  test("reports the server's error and exits 1; a bad command exits 2 with the usage", async () => {
    const [code, , err] = await cli(['accounts', 'show', 'not-a-uuid'], { SVC_ADMIN_KEY: adminKey });
    expect(code).toBe(1);
    expect(err).toMatch(/400 Invalid request parameters: accountId\b.* \(request [0-9a-f]+-SVC\)/);
    const [usage, , text] = await cli(['accounts', 'frobnicate']);
    expect(usage).toBe(2);
    expect(text).toContain('usage: npm run admin');
  });

  test('usage --limit N pages the usage history as documented', async () => {
    const [code, out, err] = await cli(['usage', '--limit', '100'], { SVC_ADMIN_KEY: adminKey });
    expect({ code, err }).toEqual({ code: 0, err: '' });
    expect(Array.isArray(JSON.parse(out).data)).toBe(true);
  });

  test('a --url without the base path says where the API lives', async () => {
    const origin = new URL(api).origin;
    const [code, , err] = await cli(['keys', 'list', '--key', adminKey, '--url', origin]);
    expect(code).toBe(1);
    expect(err).toContain('404');
    expect(err).toContain(`try --url ${origin}/api/v1`);
  });
});

describe('graceful shutdown', () => {
  test('SIGTERM during a 60 s stream ends it in-band at the deadline, settles it, and exits cleanly', async () => {
    const res = await chat(adminKey, { model: 'slow-model', stream: true, messages: [{ role: 'user', content: 'talk' }] });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('cf-ray')!;
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes(' t2')) text += decoder.decode((await reader.read()).value, { stream: true });

    const signalled = Date.now();
    server.kill('SIGTERM');
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    const tookMs = Date.now() - signalled;
    expect(await server.exited).toBe(0);

    // Cut at the 1 s deadline, far before the upstream's 60 s: an error event, then [DONE].
    expect(tookMs).toBeLessThan(15_000);
    expect(text).not.toContain(' t299');
    expect(text).toMatch(/data: \{"error":\{"message":"The server is shutting down[^"]*"[^\n]*\n\ndata: \[DONE\]\n\n$/);
    for (const step of [
      'shutdown: started',
      'shutdown: draining',
      'stopped accepting connections',
      'deadline reached, streams ended in-band and settled',
      'ledger flushed',
      'shutdown: done',
    ])
      expect(stdout).toContain(step);
    expect(stdout).toContain(`"requestId":"${requestId}"`);
    expect(existsSync(join(dataDir, 'svc.lock.json'))).toBe(false);

    // The ledger has the charge for what was streamed.
    const storage = await openPglite({ dataDir: join(dataDir, 'pglite') });
    try {
      const rows = (await storage.db.execute(
        sql`select amount_micros, completion_tokens from ledger_lines where request_id = ${requestId}`,
      )) as unknown as {
        rows: { amount_micros: string; completion_tokens: number }[];
      };
      expect(rows.rows.length).toBeGreaterThan(0);
      expect(Number(rows.rows[0]!.amount_micros)).toBeLessThan(0);
      expect(rows.rows[0]!.completion_tokens).toBeGreaterThan(0);
    } finally {
      await storage.close();
    }
  }, 60_000);
});
