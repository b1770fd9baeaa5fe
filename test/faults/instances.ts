import { sql } from 'drizzle-orm';
import { createApp } from '../../src/app';
import { bootstrapAdminKey } from '../../src/auth/bootstrap';
import { createDeps } from '../../src/boot';
import { parseConfig } from '../../src/config';
import type { Storage } from '../../src/db/database';
import type { AppDeps } from '../../src/deps';
import { createRedisStore } from '../../src/kv/redis';
import { BACKENDS } from '../helpers/backends';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';

const PLENTY = { rpm: 1_000_000, tpm: 1_000_000_000 };
const LOAD_LIMITS = { text: { XS: PLENTY, S: PLENTY, M: PLENTY, L: PLENTY } };

/** One svc instance of a fault test, over the shared database and its own connection to the test's Redis. */
export interface Instance {
  deps: AppDeps;
  app: ReturnType<typeof createApp>;
  handle(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
}

/** What one chat call came back with. */
export interface ChatOutcome {
  status: number;
  ms: number;
  retryAfter: string | null;
  /** `cost.usd` in micro-units, 0 when none. */
  costMicros: number;
  error: string | null;
}

/** Instances sharing one database and one Redis at `redisUrl`, a fixture upstream, and the bootstrap ADMIN key. */
export interface Fleet {
  instances: Instance[];
  storage: Storage;
  upstream: FixtureUpstream;
  key: string;
  /** One chat request (stream or not) through instance `i`, with its cost read from the body. */
  chat(i: number, opts?: { stream?: boolean }): Promise<ChatOutcome>;
  /** Sum of the `cost` every client was shown on a 200 (micro-units). */
  readonly served: number;
  /** Sum of the ledger's charges (micro-units, positive). */
  ledgerCharged(): Promise<number>;
  close(): Promise<void>;
}

/** Starts `n` instances (the database is Postgres when DATABASE_URL is set, else PGlite shared in process). */
export async function startFleet(opts: { redisUrl: string; n: number; config?: Record<string, unknown> }): Promise<Fleet> {
  const upstream = startUpstream('f');
  const storage = await BACKENDS.at(-1)!.storage();
  const config = parseConfig({
    logLevel: 'silent',
    providers: [fixtureProvider('up', upstream.url)],
    models: [fixtureModel('fix', ['up'])],
    // The abuse guard stays on, as in production: the 503s of an outage must not block anyone.
    abuseGuard: { enabled: true },
    // Load tests here are about Redis, not about the per-model limits.
    rateLimits: { standard: LOAD_LIMITS, partner: LOAD_LIMITS },
    ...opts.config,
  });
  const prefix = `f${Date.now()}:`;
  const instances: Instance[] = [];
  for (let i = 0; i < opts.n; i++) {
    const kv = await createRedisStore(opts.redisUrl, { prefix, redis: config.redis as Record<string, number> | undefined });
    const deps = await createDeps(config, { storage, kv });
    const app = createApp(deps);
    instances.push({
      deps,
      app,
      handle(path, init = {}) {
        const headers = new Headers(init.headers);
        if (!headers.has('authorization') && key) headers.set('authorization', `Bearer ${key}`);
        let body = init.body;
        if (init.json !== undefined) {
          body = JSON.stringify(init.json);
          headers.set('content-type', 'application/json');
        }
        const url = path.startsWith('/health') ? path : `${config.basePath}${path}`;
        return app.handle(new Request(`http://localhost${url}`, { ...init, headers, body }));
      },
    });
  }
  const key = (await bootstrapAdminKey(storage.db, '1000')) as string;

  let served = 0;
  async function chat(i: number, o: { stream?: boolean } = {}): Promise<ChatOutcome> {
    const started = performance.now();
    const json = { model: 'fix', messages: [{ role: 'user', content: 'x'.repeat(40) }], max_tokens: 5, stream: o.stream ?? false };
    const res = await instances[i]!.handle('/chat/completions', {
      method: 'POST',
      json: o.stream ? { ...json, stream_options: { include_usage: true } } : json,
    });
    const text = await res.text();
    const ms = performance.now() - started;
    let costMicros = 0;
    let error: string | null = null;
    if (res.status === 200 && o.stream) {
      for (const line of text.split('\n')) {
        if (!line.startsWith('data: {')) continue;
        const event = JSON.parse(line.slice(6));
        if (event.cost) costMicros += Math.round(event.cost.usd * 1e6);
        if (event.error) error = event.error.message;
      }
    } else if (res.status === 200) costMicros = Math.round(JSON.parse(text).cost.usd * 1e6);
    else error = JSON.parse(text).error;
    served += costMicros;
    return { status: res.status, ms, retryAfter: res.headers.get('retry-after'), costMicros, error };
  }

  return {
    get served() {
      return served;
    },
    instances,
    storage,
    upstream,
    key,
    chat,
    async ledgerCharged() {
      for (const inst of instances) await inst.deps.meter.flush();
      const rows = (await storage.db.execute(
        sql`select coalesce(-sum(amount_micros), 0)::text as charged from ledger_lines where kind = 'CHARGE'`,
      )) as unknown;
      const list = (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows) as { charged: string }[];
      return Number(list[0]!.charged);
    },
    async close() {
      for (const inst of instances) {
        await inst.deps.meter.close();
        await inst.deps.limits.close();
        await inst.deps.keys.close();
        await inst.deps.kv.close();
      }
      await storage.close();
      await upstream.close();
    },
  };
}

/** Polls `fn` every 50 ms until it returns true; returns the ms it took, or throws after `limitMs`. */
export async function within(limitMs: number, fn: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await fn()) return performance.now() - started;
    if (performance.now() - started > limitMs) throw new Error(`not within ${limitMs} ms`);
    await Bun.sleep(50);
  }
}
