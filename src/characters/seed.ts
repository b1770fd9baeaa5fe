import { Value } from '@sinclair/typebox/value';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { Database } from '../db/database';
import { characterReviews, characters } from '../db/schema';
import { eq } from 'drizzle-orm';
import { SeedFile } from './schema';

/** A UUID derived from a name, so every instance gives a seeded review the same id. */
export function nameUuid(name: string): string {
  const h = createHash('sha256').update(`svc-seed:${name}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16] as string, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * Reads and validates the seed file synchronously, so a broken file stops the start with a
 * message naming the field. A missing file is no error: there is simply nothing to load.
 */
export function readSeedFile(path: string): SeedFile | null {
  if (!existsSync(path)) return null;
  const raw: unknown = parseYaml(readFileSync(path, 'utf8')) ?? { characters: [] };
  const first = Value.Errors(SeedFile, raw).First();
  if (first) throw new Error(`${path}: invalid field "${first.path.replace(/^\//, '').replaceAll('/', '.')}": ${first.message}`);
  return raw as SeedFile;
}

/**
 * Loads the seed into the database idempotently: characters by slug (an existing one is
 * left as it is), reviews by a name-derived id (slug + position), both ON CONFLICT DO
 * NOTHING, so restarts and instances starting together never duplicate a row.
 */
export async function loadSeed(db: Database, seed: SeedFile): Promise<{ characters: number; reviews: number }> {
  let reviewCount = 0;
  for (const c of seed.characters) {
    const { reviews = [], ...fields } = c;
    await db
      .insert(characters)
      .values({ ...fields, tags: fields.tags ?? [] })
      .onConflictDoNothing({ target: characters.slug });
    const [row] = await db.select({ id: characters.id }).from(characters).where(eq(characters.slug, c.slug));
    if (!row || reviews.length === 0) continue;
    const values = reviews.map((r, i) => ({
      id: nameUuid(`${c.slug}#${i}`),
      characterId: row.id,
      username: r.username,
      rating: r.rating,
      message: r.message ?? null,
      locale: r.locale ?? null,
      userAvatarUrl: r.userAvatarUrl ?? null,
      ...(r.createdAt ? { createdAt: new Date(r.createdAt) } : {}),
    }));
    await db.insert(characterReviews).values(values).onConflictDoNothing({ target: characterReviews.id });
    reviewCount += values.length;
  }
  return { characters: seed.characters.length, reviews: reviewCount };
}
