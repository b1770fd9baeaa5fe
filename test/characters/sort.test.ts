import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { characters } from '../../src/db/schema';
import { BACKENDS } from '../helpers/backends';
import { startTestApp, type TestApp } from '../helpers/app';

const character = (slug: string) => ({ slug, name: slug, systemPrompt: 'You are terse.', modelId: 'llama-3.3-70b' });

describe.each(BACKENDS)('GET /characters sortBy on $name', (backend) => {
  let t: TestApp;
  const order = async (query: string) =>
    ((await (await t.request(`/characters?${query}`)).json()).data as { slug: string }[])
      .map((c) => c.slug)
      .filter((s) => s === 'one-hit' || s === 'steady');

  beforeAll(async () => {
    t = await startTestApp({ backend });
    for (const slug of ['one-hit', 'steady'])
      expect((await t.request('/characters', { method: 'POST', json: character(slug) })).status).toBe(200);
    const review = (slug: string, rating: number) =>
      t.request(`/characters/${slug}/reviews`, { method: 'POST', json: { username: 'r', rating } });
    await review('one-hit', 5);
    for (const rating of [5, 5, 5, 5, 4, 5]) await review('steady', rating);
    // steady is a year old, one-hit is new.
    await t.deps.storage.db
      .update(characters)
      .set({ createdAt: new Date(Date.now() - 365 * 86_400_000) })
      .where(eq(characters.slug, 'steady'));
  });
  afterAll(() => t.close());

  test('all seven reference values are accepted', async () => {
    for (const sortBy of ['featured', 'highestRating', 'highlyRated', 'highlyRatedAndRecent', 'imports', 'mostRecent', 'ratingCount']) {
      const res = await t.request(`/characters?sortBy=${sortBy}`);
      expect(res.status).toBe(200);
      expect((await res.json()).data.length).toBeGreaterThanOrEqual(4);
    }
  });

  test('highestRating puts one 5-star review first; highlyRated prefers six reviews averaging 4.83', async () => {
    expect(await order('sortBy=highestRating')).toEqual(['one-hit', 'steady']);
    expect(await order('sortBy=highlyRated')).toEqual(['steady', 'one-hit']);
    expect(await order('sortBy=highlyRated&sortOrder=asc')).toEqual(['one-hit', 'steady']);
  });

  test('highlyRatedAndRecent lets age pull a well-rated but year-old character down', async () => {
    expect(await order('sortBy=highlyRatedAndRecent')).toEqual(['one-hit', 'steady']);
  });

  test('an unknown sortBy is a 400 listing all seven values', async () => {
    const res = await t.request('/characters?sortBy=random');
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toContain('sortBy');
    expect(body.details.sortBy._errors[0]).toContain('highlyRatedAndRecent');
  });
});
