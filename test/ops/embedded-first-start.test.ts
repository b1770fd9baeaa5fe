import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { openStorage } from '../../src/db/open';

// A new embedded database is created and migrated in a child process (its start-up peak would
// stay resident in svc: src/db/first-start.ts); svc then opens the directory as on a restart.
const dir = mkdtempSync(join(tmpdir(), 'svc-first-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tables = async (steps: string[]) => {
  const storage = await openStorage({ dataDir: dir }, (step) => steps.push(step));
  try {
    const result = (await storage.db.execute(
      sql.raw(`select count(*)::int as n from pg_tables where schemaname = 'public'`),
    )) as unknown as {
      rows: { n: number }[];
    };
    return result.rows[0]?.n;
  } finally {
    await storage.close();
  }
};

test('a first start creates the database in a child process; a restart opens it without one', async () => {
  const first: string[] = [];
  expect(await tables(first)).toBeGreaterThan(5);
  expect(first[0]).toContain('first start');

  const again: string[] = [];
  expect(await tables(again)).toBeGreaterThan(5);
  expect(again.some((step) => step.includes('first start'))).toBe(false);
}, 60_000);
