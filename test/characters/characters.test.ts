import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiKey } from '../../src/auth/api-keys';
import { createAccount } from '../../src/auth/bootstrap';
import { loadSeed, readSeedFile } from '../../src/characters/seed';
import { charactersOf } from '../../src/characters';
import { createApp } from '../../src/app';
import { BACKENDS } from '../helpers/backends';
import { startTestApp, type TestApp } from '../helpers/app';

describe.each(BACKENDS)('characters on $name', (backend) => {
  let t: TestApp;
  let inferenceKey: string;
  let strangerKey: string;

  beforeAll(async () => {
    t = await startTestApp({ backend });
    const created = await t.request('/api_keys', { method: 'POST', json: { apiKeyType: 'INFERENCE', description: 'chars' } });
    inferenceKey = (await created.json()).data.apiKey;
    const other = await createAccount(t.deps.storage.db, { displayName: 'other' });
    strangerKey = (await createApiKey(t.deps.storage.db, { accountId: other, type: 'ADMIN', description: 'other' })).secret;
  });
  afterAll(() => t.close());

  describe('GET /characters', () => {
    test('lists the two seeded characters with every field of the record', async () => {
      const res = await t.request('/characters', { key: t.adminKey });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.object).toBe('list');
      const slugs = body.data.map((c: { slug: string }) => c.slug);
      expect(slugs).toContain('alan-watts');
      expect(slugs).toContain('code-reviewer');
      const alan = body.data.find((c: { slug: string }) => c.slug === 'alan-watts');
      expect(Object.keys(alan).sort()).toEqual(
        [
          'adult',
          'author',
          'createdAt',
          'description',
          'featured',
          'id',
          'modelId',
          'name',
          'photoUrl',
          'shareUrl',
          'slug',
          'stats',
          'tags',
          'updatedAt',
          'webEnabled',
        ].sort(),
      );
      expect(alan.stats).toEqual({ averageRating: 4, imports: 0, ratingCount: 3, ratingSum: 12, userRating: null });
      expect(alan).not.toHaveProperty('systemPrompt');
    });

    test('search, flags, limit and offset', async () => {
      const search = await (await t.request('/characters?search=reviewer')).json();
      expect(search.data.map((c: { slug: string }) => c.slug)).toEqual(['code-reviewer']);
      const tagged = await (await t.request('/characters?tags=coding&tags=review')).json();
      expect(tagged.data.map((c: { slug: string }) => c.slug)).toEqual(['code-reviewer']);
      expect((await (await t.request('/characters?tags=coding,zen')).json()).data).toEqual([]);
      const byModel = await (await t.request('/characters?modelId=llama-3.3-70b,nope')).json();
      expect(byModel.data.map((c: { slug: string }) => c.slug)).toEqual(['alan-watts']);
      const web = await (await t.request('/characters?isWebEnabled=true')).json();
      expect(web.data.every((c: { webEnabled: boolean }) => c.webEnabled)).toBe(true);
      const one = await (await t.request('/characters?limit=1&sortBy=mostRecent&sortOrder=asc')).json();
      expect(one.data).toHaveLength(1);
      const skipped = await (await t.request('/characters?limit=1&offset=1&sortBy=mostRecent&sortOrder=asc')).json();
      expect(skipped.data[0].slug).not.toBe(one.data[0].slug);
    });

    test('limit=0 and limit=101 are 400 naming limit; a bad sortBy lists the allowed values', async () => {
      for (const q of ['limit=0', 'limit=101']) {
        const res = await t.request(`/characters?${q}`);
        expect(res.status).toBe(400);
        expect((await res.json()).details.limit._errors.length).toBeGreaterThan(0);
      }
      const res = await t.request('/characters?sortBy=random');
      expect(res.status).toBe(400);
      expect((await res.json()).details.sortBy._errors[0]).toContain('highestRating');
    });

    test('401 without or with a wrong key', async () => {
      expect((await t.request('/characters', { key: null })).status).toBe(401);
      const res = await t.request('/characters', { key: 'not-a-key' });
      expect(res.status).toBe(401);
      expect(Object.keys(await res.json())).toEqual(['error']);
    });
  });

  describe('GET /characters/{slug}', () => {
    test('200 with the record', async () => {
      const res = await t.request('/characters/code-reviewer', { key: t.adminKey });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.object).toBe('character');
      expect(body.data).toMatchObject({
        slug: 'code-reviewer',
        name: 'Strict Code Reviewer',
        webEnabled: true,
        modelId: 'qwen3-235b-a22b-thinking-2507',
        tags: ['coding', 'review'],
      });
      expect(body.data.stats).toMatchObject({ ratingCount: 2, ratingSum: 9, averageRating: 4.5 });
    });

    test('404 StandardError for an unknown slug; 401 without a key', async () => {
      const res = await t.request('/characters/nobody');
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: 'Character not found' });
      expect((await t.request('/characters/code-reviewer', { key: null })).status).toBe(401);
    });
  });

  describe('GET /characters/{slug}/reviews (spec 4.1)', () => {
    test('defaults page=1 pageSize=20: envelope, summary and the four pagination headers', async () => {
      const res = await t.request('/characters/alan-watts/reviews', { key: t.adminKey });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(res.headers.get('x-pagination-limit')).toBe('20');
      expect(res.headers.get('x-pagination-page')).toBe('1');
      expect(res.headers.get('x-pagination-total')).toBe('3');
      expect(res.headers.get('x-pagination-total-pages')).toBe('1');
      const body = await res.json();
      expect(Object.keys(body).sort()).toEqual(['data', 'object', 'pagination', 'summary']);
      expect(body.object).toBe('list');
      expect(body.pagination).toEqual({ page: 1, pageSize: 20, total: 3, totalPages: 1 });
      expect(body.summary).toEqual({ averageRating: 4, totalReviews: 3 });
      expect(body.data).toHaveLength(3);
      for (const r of body.data)
        expect(Object.keys(r).sort()).toEqual([
          'characterId',
          'createdAt',
          'id',
          'isOwner',
          'locale',
          'message',
          'rating',
          'userAvatarUrl',
          'username',
        ]);
      // Newest first; nullable fields present as null.
      expect(body.data.map((r: { username: string }) => r.username)).toEqual(['anon', 'nightowl', 'seeker42']);
      expect(body.data[0]).toMatchObject({ message: null, locale: null, userAvatarUrl: null, isOwner: false, rating: 3 });
      expect(body.data[0].createdAt).toBe('2026-02-01T08:30:00.000Z');
    });

    test('paging: pageSize=2 gives 2 pages; page 3 is empty with the same totals', async () => {
      const p2 = await t.request('/characters/alan-watts/reviews?page=2&pageSize=2');
      expect(p2.headers.get('x-pagination-total-pages')).toBe('2');
      expect(p2.headers.get('x-pagination-page')).toBe('2');
      expect(p2.headers.get('x-pagination-limit')).toBe('2');
      const b2 = await p2.json();
      expect(b2.data.map((r: { username: string }) => r.username)).toEqual(['seeker42']);
      expect(b2.pagination).toEqual({ page: 2, pageSize: 2, total: 3, totalPages: 2 });
      const b3 = await (await t.request('/characters/alan-watts/reviews?page=3&pageSize=2')).json();
      expect(b3.data).toEqual([]);
      expect(b3.pagination.total).toBe(3);
      const max = await t.request('/characters/alan-watts/reviews?pageSize=100');
      expect(max.status).toBe(200);
      // Past the end: empty, no SQL overflow (beyond 2^53 Elysia refuses the integer: 400 naming it).
      const far = await (await t.request('/characters/alan-watts/reviews?page=4000000000000&pageSize=100')).json();
      expect(far.data).toEqual([]);
      expect(far.pagination).toMatchObject({ page: 4000000000000, total: 3 });
      expect((await t.request('/characters?offset=4000000000000')).status).toBe(200);
      const huge = await t.request('/characters/alan-watts/reviews?page=100000000000000000000');
      expect(huge.status).toBe(400);
      expect((await huge.json()).details.page).toBeDefined();
    });

    test.each([
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=1.5', 'page'],
      ['pageSize=0', 'pageSize'],
      ['pageSize=101', 'pageSize'],
      ['pageSize=abc', 'pageSize'],
      ['page=x&pageSize=5', 'page'],
    ])('%s -> 400 DetailedError naming %s', async (q, field) => {
      const res = await t.request(`/characters/alan-watts/reviews?${q}`);
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(typeof body.error).toBe('string');
      expect(body.error).toContain(field);
      expect(body.details[field]._errors.length).toBeGreaterThan(0);
    });

    test('401 StandardError without, or with an invalid, key', async () => {
      for (const key of [null, 'sk-wrong']) {
        const res = await t.request('/characters/alan-watts/reviews', { key });
        expect(res.status).toBe(401);
        expect(Object.keys(await res.json())).toEqual(['error']);
      }
    });

    test('404 StandardError for an unknown slug', async () => {
      const res = await t.request('/characters/ghost/reviews');
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: 'Character not found' });
    });
  });

  describe('ADMIN additions and isOwner', () => {
    test('POST /characters/{slug}/reviews: isOwner true for the author account, false for others; summary follows', async () => {
      const add = await t.request('/characters/code-reviewer/reviews', {
        method: 'POST',
        json: { username: 'me', rating: 1, message: 'Too harsh' },
      });
      expect(add.status).toBe(200);
      const added = (await add.json()).data;
      expect(added).toMatchObject({ username: 'me', rating: 1, isOwner: true, locale: null });

      // Same account through an INFERENCE key: still the owner.
      const mine = await (await t.request('/characters/code-reviewer/reviews', { key: t.adminKey })).json();
      expect(mine.data[0]).toMatchObject({ id: added.id, isOwner: true });
      expect(mine.data.slice(1).every((r: { isOwner: boolean }) => !r.isOwner)).toBe(true);
      expect(mine.summary).toEqual({ averageRating: 3.33, totalReviews: 3 });

      const theirs = await (await t.request('/characters/code-reviewer/reviews', { key: strangerKey })).json();
      expect(theirs.data.find((r: { id: string }) => r.id === added.id).isOwner).toBe(false);

      const character = await (await t.request('/characters/code-reviewer')).json();
      expect(character.data.stats.userRating).toBe(1);
    });

    test('review input: rating 6 and a missing username are 400 naming the field; unknown slug 404', async () => {
      const bad = await t.request('/characters/code-reviewer/reviews', { method: 'POST', json: { username: 'x', rating: 6 } });
      expect(bad.status).toBe(400);
      expect((await bad.json()).details.rating).toBeDefined();
      const noName = await t.request('/characters/code-reviewer/reviews', { method: 'POST', json: { rating: 3 } });
      expect((await noName.json()).details.username).toBeDefined();
      expect((await t.request('/characters/ghost/reviews', { method: 'POST', json: { username: 'x', rating: 3 } })).status).toBe(404);
    });

    test('POST /characters creates a character; a duplicate slug is 409; a bad slug is 400', async () => {
      const input = { slug: 'pirate', name: 'Pirate', systemPrompt: 'Talk like a pirate.', modelId: 'llama-3.3-70b', tags: ['fun'] };
      const res = await t.request('/characters', { method: 'POST', json: input });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body).toMatchObject({
        object: 'character',
        data: { slug: 'pirate', name: 'Pirate', tags: ['fun'], description: null, stats: { ratingCount: 0, averageRating: 0 } },
      });
      expect((await t.request('/characters/pirate')).status).toBe(200);
      const dup = await t.request('/characters', { method: 'POST', json: input });
      expect(dup.status).toBe(409);
      expect(Object.keys(await dup.json())).toEqual(['error']);
      const bad = await t.request('/characters', { method: 'POST', json: { ...input, slug: 'Not A Slug' } });
      expect(bad.status).toBe(400);
      expect((await bad.json()).details.slug).toBeDefined();
    });

    test('INFERENCE keys may not read or add characters or reviews (403)', async () => {
      for (const path of ['/characters', '/characters/alan-watts', '/characters/alan-watts/reviews'])
        expect((await t.request(path, { key: inferenceKey })).status).toBe(403);
      expect(
        (
          await t.request('/characters', {
            method: 'POST',
            key: inferenceKey,
            json: { slug: 'x', name: 'x', systemPrompt: 'x', modelId: 'x' },
          })
        ).status,
      ).toBe(403);
      expect(
        (await t.request('/characters/alan-watts/reviews', { method: 'POST', key: inferenceKey, json: { username: 'x', rating: 3 } }))
          .status,
      ).toBe(403);
    });
  });

  test('the seed is idempotent: loading it again adds no rows', async () => {
    const seed = readSeedFile(t.deps.config.charactersFile);
    expect(seed).not.toBeNull();
    await charactersOf(t.deps).ready;
    // Twice in a row and twice at once (two instances starting together).
    await loadSeed(t.deps.storage.db, seed!);
    await Promise.all([loadSeed(t.deps.storage.db, seed!), loadSeed(t.deps.storage.db, seed!)]);
    const body = await (await t.request('/characters/alan-watts/reviews')).json();
    expect(body.pagination.total).toBe(3);
    const list = await (await t.request('/characters?search=Alan')).json();
    expect(list.data).toHaveLength(1);
  });
});

describe('seed file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-seed-'));

  test('an invalid seed file stops createApp with a message naming the field', async () => {
    const path = join(dir, 'bad.yaml');
    writeFileSync(
      path,
      'characters:\n  - slug: ok\n    name: X\n    systemPrompt: p\n    modelId: m\n    reviews:\n      - username: u\n        rating: 9\n',
    );
    const t = await startTestApp({ config: { charactersFile: join(dir, 'missing.yaml') } });
    try {
      expect(() => createApp({ ...t.deps, config: { ...t.deps.config, charactersFile: path } })).toThrow(
        /characters\.0\.reviews\.0\.rating/,
      );
    } finally {
      await t.close();
    }
  });

  test('a missing seed file loads nothing', async () => {
    const t = await startTestApp({ config: { charactersFile: join(dir, 'missing.yaml') } });
    try {
      const body = await (await t.request('/characters')).json();
      expect(body.data).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
