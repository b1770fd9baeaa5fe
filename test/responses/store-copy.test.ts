import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'drizzle-orm';
import { createAccount } from '../../src/auth/bootstrap';
import type { Storage } from '../../src/db/database';
import { pgliteOf } from '../../src/db/embedded-client';
import { createLogger } from '../../src/log';
import { copyStoredResponses } from '../../src/responses/store-copy';
import { createResponseStore, type ResponseStore, type StoredResponse } from '../../src/responses/store';
import { EMBEDDED } from '../helpers/backends';

const DAY = 86_400_000;

/** A stored response whose text holds what CSV and JSON must both carry: quotes, commas, newlines, backslashes, unicode. */
function stored(id: string, accountId: string, text: string, previous: string | null = null): StoredResponse {
  const at = 1_800_000_000_123;
  return {
    id,
    accountId,
    previousResponseId: previous,
    rootId: previous ?? id,
    status: 'completed',
    input: [
      { type: 'message', id: `msg_${id}_in0`, role: 'user', content: [{ type: 'input_text', text: 'Hi, "you"' }], status: 'completed' },
    ],
    response: { id, object: 'response', status: 'completed', output: [{ type: 'message', content: [{ type: 'output_text', text }] }] },
    createdAt: at,
    expiresAt: at + 30 * DAY,
  };
}

describe('stored responses on the embedded database go in by COPY', () => {
  let storage: Storage;
  let store: ResponseStore;
  let accountId: string;
  const now = () => 1_800_000_000_123 + 1000;

  beforeAll(async () => {
    storage = await EMBEDDED.storage();
    accountId = await createAccount(storage.db, {});
    store = createResponseStore(storage.db, { log: createLogger('error'), now, flushIntervalMs: 3_600_000, sweepIntervalMs: 3_600_000 });
  });
  afterAll(async () => {
    await store.close();
    await storage.close();
  });

  test('a batch is written by one COPY and reads back as it was saved', async () => {
    const pg = pgliteOf(storage.db)!;
    const rows = [
      stored('resp_c1', accountId, 'a, "quoted"\nline \\ back \u00e9 \ud83d\ude00'),
      stored('resp_c2', accountId, 'two', 'resp_c1'),
    ];
    expect(await copyStoredResponses(pg, rows)).toBe(true);
    for (const row of rows) expect(await store.get(accountId, row.id)).toEqual(row);
  });

  test('a batch COPY refuses (an id stored before, NUL in the text) is written by the INSERT: updated, NUL dropped on retry', async () => {
    const pg = pgliteOf(storage.db)!;
    const again = { ...stored('resp_c1', accountId, 'later'), status: 'cancelled' };
    expect(await copyStoredResponses(pg, [again])).toBe(false);
    store.save(again);
    await store.flush();
    expect((await store.get(accountId, 'resp_c1'))?.status).toBe('cancelled');

    const nul = stored('resp_nul', accountId, 'bad \u0000 text');
    expect(await copyStoredResponses(pg, [nul])).toBe(false);
    store.save(nul);
    await store.flush(); // the batch's INSERT fails too; retried alone without NUL on the next flush
    await store.flush();
    const read = await store.get(accountId, 'resp_nul');
    expect(JSON.stringify(read?.response)).toContain('bad  text');
  });

  test('a saved response is written by the timer its save armed, and a failed write re-arms it', async () => {
    const timed = createResponseStore(storage.db, { log: createLogger('error'), now, flushIntervalMs: 20, sweepIntervalMs: 3_600_000 });
    const inTable = async (id: string) => {
      const result = await storage.db.execute(sql`select response::text as response from stored_responses where id = ${id}`);
      const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { response: string }[];
      return rows[0]?.response ?? null;
    };
    try {
      timed.save(stored('resp_t1', accountId, 'timed'));
      // The first write of a NUL fails; its retry (without the NUL) needs a second, re-armed round.
      timed.save(stored('resp_t2', accountId, 'bad \u0000 timed'));
      const deadline = performance.now() + 5000;
      while (performance.now() < deadline && !((await inTable('resp_t1')) && (await inTable('resp_t2')))) await Bun.sleep(20);
      expect(await inTable('resp_t1')).toContain('timed');
      expect(await inTable('resp_t2')).toContain('bad  timed');
    } finally {
      await timed.close();
    }
  });
});
