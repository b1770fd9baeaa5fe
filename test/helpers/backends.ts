import { PGlite } from '@electric-sql/pglite';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import type { Storage } from '../../src/db/database';
import { openPglite, openPostgres } from '../../src/db/open';
import type { KeyValueStore } from '../../src/kv/store';
import { createMemoryStore } from '../../src/kv/memory';
import { createRedisStore } from '../../src/kv/redis';

/** A storage + KV pair to run a suite against. */
export interface TestBackend {
  /** 'embedded' (PGlite + memory) or 'external' (Postgres + Redis from the env URLs). */
  name: 'embedded' | 'external';
  /** A fresh, migrated, empty database of this backend. */
  storage(): Promise<Storage>;
  /** A fresh KV namespace of this backend; `now` is honoured by the memory store only. */
  kv(opts?: { now?: () => number; prefix?: string }): Promise<KeyValueStore>;
}

let pgliteTemplate: Promise<Blob> | null = null;

/** Migrates PGlite once per test process and returns its dump, to clone in milliseconds. */
function migratedPgliteDump(): Promise<Blob> {
  pgliteTemplate ??= (async () => {
    const storage = await openPglite();
    const dump = await (storage as unknown as { db: { $client: PGlite } }).db.$client.dumpDataDir('none');
    await storage.close();
    return dump;
  })();
  return pgliteTemplate;
}

const embedded: TestBackend = {
  name: 'embedded',
  async storage() {
    return openPglite({ loadDataDir: await migratedPgliteDump() });
  },
  async kv(opts = {}) {
    return createMemoryStore({ now: opts.now, prefix: opts.prefix });
  },
};

let pgTemplate: Promise<string> | null = null;

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Migrates a template database once per process; each suite then copies it. */
function postgresTemplate(adminUrl: string): Promise<string> {
  pgTemplate ??= (async () => {
    const name = `svc_tpl_${process.pid}_${randomBytes(3).toString('hex')}`;
    const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`CREATE DATABASE ${name}`);
    await admin.end();
    const storage = await openPostgres(withDatabase(adminUrl, name), { max: 1 });
    await storage.close();
    process.once('beforeExit', () => void dropDatabase(adminUrl, name));
    return name;
  })();
  return pgTemplate;
}

async function dropDatabase(adminUrl: string, name: string) {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

function externalBackend(databaseUrl: string, redisUrl: string): TestBackend {
  return {
    name: 'external',
    async storage() {
      const template = await postgresTemplate(databaseUrl);
      const name = `svc_t_${randomBytes(6).toString('hex')}`;
      const admin = postgres(databaseUrl, { max: 1, onnotice: () => {} });
      await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${template}`);
      await admin.end();
      const storage = await openPostgres(withDatabase(databaseUrl, name), { max: 20 });
      return {
        ...storage,
        async close() {
          await storage.close();
          await dropDatabase(databaseUrl, name);
        },
      };
    },
    async kv(opts = {}) {
      return createRedisStore(redisUrl, { prefix: opts.prefix ?? `t:${randomBytes(6).toString('hex')}:` });
    },
  };
}

/** An empty, unmigrated Postgres database of its own (a server process migrates it), dropped by `drop`. */
export async function scratchDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `svc_s_${randomBytes(6).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return { url: withDatabase(adminUrl, name), drop: () => dropDatabase(adminUrl, name) };
}

/**
 * The backends a storage or limits suite runs on: always the embedded pair, and also
 * Postgres + Redis when DATABASE_URL and REDIS_URL are set (as .ci/run does).
 */
export const BACKENDS: TestBackend[] = [
  embedded,
  ...(process.env.DATABASE_URL && process.env.REDIS_URL ? [externalBackend(process.env.DATABASE_URL, process.env.REDIS_URL)] : []),
];

/** The embedded backend alone, for suites that test no storage behaviour. */
export const EMBEDDED = embedded;

/** Prepares the migrated templates of every backend in use (called once from the test preload). */
export async function warmBackends(): Promise<void> {
  await migratedPgliteDump();
  if (process.env.DATABASE_URL && process.env.REDIS_URL) await postgresTemplate(process.env.DATABASE_URL);
}
