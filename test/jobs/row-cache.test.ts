import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { randomUUID } from 'node:crypto';
import type { Storage } from '../../src/db/database';
import { mediaJobs } from '../../src/db/schema';
import { JobRowCache } from '../../src/jobs/row-cache';
import {
  cancelJob,
  claimDue,
  findJob,
  finishJob,
  insertJob,
  markDeleted,
  noteNextDue,
  nothingDueBefore,
  type MediaJob,
} from '../../src/jobs/store';
import { BACKENDS } from '../helpers/backends';

const row = (id: string, status: MediaJob['status'] = 'PROCESSING') => ({ id, status }) as MediaJob;

describe('the job row cache (embedded database)', () => {
  test('a row read while no write began or ended is kept; one read across a write is not, and drops the kept copy', () => {
    const cache = new JobRowCache();
    cache.put(row('a'), cache.generation);
    expect(cache.get('a')?.status).toBe('PROCESSING');
    const since = cache.generation;
    cache.wrote(); // a write to the table began while `a` was read again
    cache.put(row('a', 'COMPLETED'), since);
    expect(cache.get('a')).toBeUndefined();
  });

  test('when the next job falls due is kept until a write, and not kept when read across one', () => {
    const cache = new JobRowCache();
    expect(cache.idleUntil).toBe(0);
    cache.noteIdleUntil(5000, cache.generation);
    expect(cache.idleUntil).toBe(5000);
    cache.wrote();
    expect(cache.idleUntil).toBe(0);
    const since = cache.generation;
    cache.wrote(); // a write began while the next due time was read
    cache.noteIdleUntil(5000, since);
    expect(cache.idleUntil).toBe(0);
  });

  test('a write changes the kept row only, and the oldest row goes past the bound', () => {
    const cache = new JobRowCache();
    cache.patch('missing', { status: 'DELETED' });
    expect(cache.get('missing')).toBeUndefined();
    cache.put(row('first'), cache.generation);
    cache.patch('first', { status: 'DELETED' });
    expect(cache.get('first')?.status).toBe('DELETED');
    for (let i = 0; i < 4096; i++) cache.put(row(`job-${i}`), cache.generation);
    expect(cache.get('first')).toBeUndefined();
    expect(cache.get('job-4095')?.status).toBe('PROCESSING');
  });
});

for (const backend of BACKENDS)
  describe(`a job's row as findJob reads it follows every write (${backend.name})`, () => {
    let storage: Storage;
    beforeAll(async () => {
      storage = await backend.storage();
    });
    afterAll(() => storage.close());

    const queued = (id: string) => ({
      id,
      kind: 'video' as const,
      accountId: randomUUID(),
      modelId: 'm',
      requestId: randomUUID(),
      charges: [],
      providerId: 'p',
      upstreamModel: 'm',
      upstreamId: 'u',
      status: 'PROCESSING' as const,
      nextPollAt: new Date(0),
      deadlineAt: new Date(Date.now() + 3_600_000),
      createdAt: new Date(),
    });

    test('queued, claimed, finished and deleted: each read after a write sees it', async () => {
      const id = randomUUID();
      await insertJob(storage.db, queued(id));
      expect((await findJob(storage.db, id))?.status).toBe('PROCESSING');
      const [claimed] = await claimDue(storage.db, 'owner-1', Date.now(), 60_000, 1000).then((jobs) => jobs.filter((j) => j.id === id));
      expect(claimed!.leaseOwner).toBe('owner-1');
      expect((await findJob(storage.db, id))?.polls).toBe(1);
      const end = {
        status: 'COMPLETED' as const,
        outcome: 'charged' as const,
        mediaKey: `${id}.mp4`,
        mediaType: 'video/mp4',
        mediaBytes: 4,
      };
      expect(await finishJob(storage.db, claimed!, 'owner-1', { ...end, finishedAt: Date.now() })).toBe(true);
      expect(await findJob(storage.db, id)).toMatchObject({ ...end, leaseOwner: null, leaseUntil: null });
      expect(await markDeleted(storage.db, id)).toBe(true);
      expect((await findJob(storage.db, id))?.status).toBe('DELETED');
    });

    test('a read racing a write never leaves the row from before the write behind', async () => {
      const id = randomUUID();
      // Written around the store, so the first read misses and goes to the table while the cancel runs.
      await storage.db.insert(mediaJobs).values(queued(id));
      const [, cancelled] = await Promise.all([findJob(storage.db, id), cancelJob(storage.db, id, Date.now())]);
      expect(cancelled).not.toBeNull();
      expect((await findJob(storage.db, id))?.status).toBe('CANCELLED');
    });

    test('after an empty claim the embedded runner knows when the next job falls due, until the next write', async () => {
      const now = Date.now();
      const later = randomUUID();
      await insertJob(storage.db, { ...queued(later), nextPollAt: new Date(now + 3_600_000) });
      expect(nothingDueBefore(storage.db)).toBe(0);
      expect(await claimDue(storage.db, 'owner-2', now, 60_000, 1000)).toEqual([]);
      await noteNextDue(storage.db);
      // On Postgres other instances write the table: nothing is known, every poll claims.
      expect(nothingDueBefore(storage.db)).toBe(backend.name === 'embedded' ? now + 3_600_000 : 0);
      const due = randomUUID();
      await insertJob(storage.db, queued(due));
      expect(nothingDueBefore(storage.db)).toBe(0);
      const claimed = await claimDue(storage.db, 'owner-2', now, 60_000, 1000);
      expect(claimed.map((j) => j.id)).toEqual([due]);
      // The claimed job falls due again when its lease runs out, before the later one.
      await noteNextDue(storage.db);
      expect(nothingDueBefore(storage.db)).toBe(backend.name === 'embedded' ? now + 60_000 : 0);
    });
  });
