import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { Storage } from '../../src/db/database';
import { openPglite } from '../../src/db/open';

// The embedded database runs on svc's own thread: these settings keep its work off the
// request path's tail (docs/perf-notes/2026-11-24.md, "Before and after this session") and its memory down.
let dir: string;
let storage: Storage;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-pglite-settings-'));
  storage = await openPglite({ dataDir: join(dir, 'data') });
});
afterAll(async () => {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

const setting = async (name: string) => {
  const result = (await storage.db.execute(sql.raw(`show ${name}`))) as unknown as { rows: Record<string, string>[] };
  return result.rows[0]?.[name];
};

test('a data directory opens with no zero-filled WAL segments, no full-page images and a 4 MB buffer pool (zeroed at start: all of it is resident)', async () => {
  expect(await setting('wal_init_zero')).toBe('off');
  expect(await setting('full_page_writes')).toBe('off');
  expect(await setting('shared_buffers')).toBe('4MB');
});
