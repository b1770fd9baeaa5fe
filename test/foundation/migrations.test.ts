import { afterAll, describe, expect, test } from 'bun:test';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { MIGRATIONS_FOLDER } from '../../src/db/open';
import { scratchDatabase } from '../helpers/backends';

interface Journal {
  entries: { idx: number; when: number; tag: string }[];
}
const journal = (): Journal => JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8'));

/** A copy of the migration folder holding only its first `count` entries, their tags renamed by `rename`. */
function migrationsUpTo(count: number, rename: (tag: string) => string = (tag) => tag): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-migrations-'));
  cpSync(MIGRATIONS_FOLDER, dir, { recursive: true });
  const j = journal();
  const kept = j.entries.slice(0, count);
  for (const entry of j.entries) rmSync(join(dir, `${entry.tag}.sql`));
  for (const entry of kept) cpSync(join(MIGRATIONS_FOLDER, `${entry.tag}.sql`), join(dir, `${rename(entry.tag)}.sql`));
  writeFileSync(join(dir, 'meta/_journal.json'), JSON.stringify({ ...j, entries: kept.map((e) => ({ ...e, tag: rename(e.tag) })) }));
  return dir;
}

// The tags the released versions shipped before the history was renumbered (the same SQL and
// timestamps; the migrators compare timestamps, so a database they migrated upgrades as is).
const RELEASED_TAGS: Record<string, string> = {
  '0004_reservations': '0006_reservations',
  '0005_wallet_payment_states': '0004_wallet_payment_states',
  '0006_account_scratch': '0007_account_scratch',
  '0007_ledger_charges': '0008_ledger_charges',
};

interface Migrating {
  migrate(folder: string): Promise<void>;
  query<T>(text: string): Promise<T[]>;
  close(): Promise<void>;
}

async function pgliteDatabase(): Promise<Migrating> {
  const client = new PGlite();
  const db = drizzlePglite(client);
  return {
    migrate: (folder) => migratePglite(db, { migrationsFolder: folder }),
    query: async <T>(text: string) => (await client.query<T>(text)).rows,
    close: () => client.close(),
  };
}

async function postgresDatabase(adminUrl: string): Promise<Migrating> {
  const scratch = await scratchDatabase(adminUrl);
  const client = postgres(scratch.url, { max: 1, onnotice: () => {} });
  const db = drizzlePostgres(client);
  return {
    migrate: (folder) => migratePostgres(db, { migrationsFolder: folder }),
    query: async <T>(text: string) => (await client.unsafe(text)) as unknown as T[],
    close: async () => {
      await client.end();
      await scratch.drop();
    },
  };
}

const BACKENDS: [string, () => Promise<Migrating>][] = [['embedded', pgliteDatabase]];
if (process.env.DATABASE_URL) BACKENDS.push(['external', () => postgresDatabase(process.env.DATABASE_URL!)]);

const tempDirs: string[] = [];
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});
function tracked(dir: string) {
  tempDirs.push(dir);
  return dir;
}

describe('the migration history', () => {
  test('the last snapshot is the schema: drizzle-kit generate writes nothing for an unchanged schema', async () => {
    // In a process of its own (schema-drift.ts says why).
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, 'schema-drift.ts')], { stdout: 'pipe', stderr: 'pipe' });
    const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    const drift = JSON.parse(out) as { snapshot: string; statements: string[] };
    // drizzle-kit diffs against the newest snapshot: it must be the newest migration's.
    expect(drift.snapshot.slice(0, 4)).toBe(journal().entries.at(-1)!.tag.slice(0, 4));
    expect(drift.statements).toEqual([]);
  });

  test('the journal is in order: indexes, file prefixes and timestamps all ascend', () => {
    const entries = journal().entries;
    entries.forEach((entry, i) => {
      expect(entry.idx).toBe(i);
      expect(entry.tag.slice(0, 4)).toBe(String(i).padStart(4, '0'));
      if (i > 0) expect(entry.when).toBeGreaterThan(entries[i - 1]!.when);
    });
    const files = readdirSync(MIGRATIONS_FOLDER).filter((f) => f.endsWith('.sql'));
    expect(files.sort()).toEqual(entries.map((e) => `${e.tag}.sql`));
  });
});

describe.each(BACKENDS)('upgrading an existing database on %s', (_name, open) => {
  test('a database created at the first migration upgrades to the current schema with its rows', async () => {
    const db = await open();
    try {
      await db.migrate(tracked(migrationsUpTo(1)));
      await db.query(`INSERT INTO accounts (id) VALUES ('00000000-0000-4000-8000-000000000001')`);
      await db.migrate(MIGRATIONS_FOLDER);
      const rows = await db.query<{ id: string; scratch: boolean }>(`SELECT id, scratch FROM accounts`);
      expect(rows).toEqual([{ id: '00000000-0000-4000-8000-000000000001', scratch: false }]);
      const applied = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM drizzle.__drizzle_migrations`);
      expect(Number(applied[0]!.n)).toBe(journal().entries.length);
    } finally {
      await db.close();
    }
  });

  test('a database migrated by a released version (the old migration tags) upgrades without running anything again', async () => {
    const db = await open();
    try {
      await db.migrate(tracked(migrationsUpTo(journal().entries.length, (tag) => RELEASED_TAGS[tag] ?? tag)));
      await db.migrate(MIGRATIONS_FOLDER);
      const applied = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM drizzle.__drizzle_migrations`);
      expect(Number(applied[0]!.n)).toBe(journal().entries.length);
      await db.query(`SELECT count(*) FROM ledger_lines`);
    } finally {
      await db.close();
    }
  });

  test('a database at the current migration migrates again as a no-op', async () => {
    const db = await open();
    try {
      await db.migrate(MIGRATIONS_FOLDER);
      await db.migrate(MIGRATIONS_FOLDER);
      const applied = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM drizzle.__drizzle_migrations`);
      expect(Number(applied[0]!.n)).toBe(journal().entries.length);
    } finally {
      await db.close();
    }
  });
});
