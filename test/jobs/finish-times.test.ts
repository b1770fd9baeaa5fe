import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { randomUUID } from 'node:crypto';
import type { Storage } from '../../src/db/database';
import { mediaJobs } from '../../src/db/jobs-schema';
import { FinishTimes } from '../../src/jobs/finish-times';
import { P80_WINDOW } from '../../src/jobs/store';
import { BACKENDS } from '../helpers/backends';

// A running job's progress reports its model's P80 time to finish: taken over the newest
// P80_WINDOW finished jobs only (a whole history made each poll cost more as jobs accrued), and
// read from the database at most once per model per 30 s on an instance (polls come every second).
for (const backend of BACKENDS)
  describe(`the P80 time to finish on ${backend.name}`, () => {
    let storage: Storage;
    let clock = Date.parse('2026-11-01T00:00:00Z');
    const base = Date.parse('2026-10-01T00:00:00Z');

    async function finished(modelId: string, count: number, durationMs: number, startAt: number) {
      const rows = Array.from({ length: count }, (_, i) => {
        const createdAt = new Date(startAt + i * 1000);
        return {
          id: randomUUID(),
          kind: 'video' as const,
          accountId: randomUUID(),
          modelId,
          requestId: randomUUID(),
          charges: [],
          providerId: 'p',
          upstreamModel: 'u',
          upstreamId: randomUUID(),
          status: 'COMPLETED' as const,
          nextPollAt: createdAt,
          deadlineAt: createdAt,
          createdAt,
          finishedAt: new Date(createdAt.getTime() + durationMs),
        };
      });
      for (let i = 0; i < rows.length; i += 200) await storage.db.insert(mediaJobs).values(rows.slice(i, i + 200));
    }

    beforeAll(async () => {
      storage = await backend.storage();
      // 100 old, slow jobs, then the window's worth of fast ones: only the fast ones count.
      await finished('m', 100, 600_000, base - 10_000_000);
      await finished('m', P80_WINDOW, 2_000, base + 200_000);
    });
    afterAll(() => storage?.close());

    test('over the newest finished jobs only; null for a model with none', async () => {
      const times = new FinishTimes(storage.db, () => clock);
      expect(await times.p80('m')).toBe(2_000);
      expect(await times.p80('none')).toBeNull();
    });

    test('read once per model per 30 s: newer jobs show after that', async () => {
      const times = new FinishTimes(storage.db, () => clock);
      expect(await times.p80('m2')).toBeNull();
      await finished('m2', 10, 5_000, base);
      clock += 29_000;
      expect(await times.p80('m2')).toBeNull();
      clock += 2_000;
      expect(await times.p80('m2')).toBe(5_000);
    });
  });
