import { and, asc, desc, eq, getTableColumns, ilike, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../db/database';
import { characterReviews, characters } from '../db/schema';
import { ServiceError } from '../http/errors';
import type { CharacterInput, ReviewInput } from './schema';

type CharacterRow = typeof characters.$inferSelect;
type ReviewRow = typeof characterReviews.$inferSelect;

/** The public Character record (API-NOTES section 7; every field present). */
export interface CharacterRecord {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  author: string;
  adult: boolean;
  featured: boolean;
  webEnabled: boolean;
  createdAt: string;
  updatedAt: string;
  shareUrl: string | null;
  photoUrl: string | null;
  stats: { averageRating: number; imports: number; ratingCount: number; ratingSum: number; userRating: number | null };
  tags: string[];
  modelId: string;
}

/** A review as GET /characters/{slug}/reviews lists it (spec 2.1; all nine fields). */
export interface ReviewRecord {
  id: string;
  characterId: string;
  createdAt: string;
  isOwner: boolean;
  locale: string | null;
  message: string | null;
  rating: number;
  userAvatarUrl: string | null;
  username: string;
}

/** Sort keys of GET /characters (a subset of the reference's). */
export type CharacterSort = (typeof CHARACTER_SORTS)[number];

/** The seven sortBy modes of the reference, in its order. */
export const CHARACTER_SORTS = [
  'featured',
  'highestRating',
  'highlyRated',
  'highlyRatedAndRecent',
  'imports',
  'mostRecent',
  'ratingCount',
] as const;

/** Filters and paging of GET /characters. */
export interface CharacterQuery {
  limit: number;
  offset: number;
  search?: string;
  isAdult?: boolean;
  isWebEnabled?: boolean;
  /** All of these tags. */
  tags?: string[];
  /** Any of these model ids. */
  modelId?: string[];
  sortBy?: CharacterSort;
  sortOrder?: 'asc' | 'desc';
}

/** Offsets beyond this cannot hold rows (and would overflow SQL integers). */
const MAX_OFFSET = 2_147_483_647;

/** Average of integer ratings, rounded to 2 places (0 when there are none). */
export const average = (sum: number, count: number) => (count === 0 ? 0 : Math.round((sum * 100) / count) / 100);

// Visible-review stats per character as correlated subqueries. The outer id is written
// qualified: drizzle renders ${characters.id} unqualified, which would bind to r.id.
const ratingCount = sql<number>`(select count(*)::int from ${characterReviews} r where r.character_id = "characters"."id" and r.visible)`;
const ratingSum = sql<number>`(select coalesce(sum(r.rating), 0)::int from ${characterReviews} r where r.character_id = "characters"."id" and r.visible)`;
const userRating = (accountId: string | null) =>
  accountId
    ? sql<
        number | null
      >`(select r.rating from ${characterReviews} r where r.character_id = "characters"."id" and r.account_id = ${accountId} and r.visible order by r.created_at desc limit 1)`
    : sql<number | null>`null::int`;

function presentCharacter(row: CharacterRow & { ratingCount: number; ratingSum: number; userRating: number | null }): CharacterRecord {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    author: row.author,
    adult: row.adult,
    featured: row.featured,
    webEnabled: row.webEnabled,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    shareUrl: row.shareUrl,
    photoUrl: row.photoUrl,
    stats: {
      averageRating: average(row.ratingSum, row.ratingCount),
      imports: row.imports,
      ratingCount: row.ratingCount,
      ratingSum: row.ratingSum,
      userRating: row.userRating ?? null,
    },
    tags: row.tags,
    modelId: row.modelId,
  };
}

function presentReview(row: ReviewRow, callerAccountId: string | null): ReviewRecord {
  return {
    id: row.id,
    characterId: row.characterId,
    createdAt: row.createdAt.toISOString(),
    isOwner: callerAccountId !== null && row.accountId === callerAccountId,
    locale: row.locale,
    message: row.message,
    rating: row.rating,
    userAvatarUrl: row.userAvatarUrl,
    username: row.username,
  };
}

// highlyRated: the mean rating shrunk towards 3 stars by 5 phantom reviews (a Bayesian
// average), so one 5-star review does not beat fifty 4.8-star ones as it does under
// highestRating. highlyRatedAndRecent divides that score by (1 + age in 30-day months).
const highlyRatedScore = sql`((${ratingSum})::float + 15) / ((${ratingCount}) + 5)`;
const ageInMonths = sql`extract(epoch from (now() - ${characters.createdAt})) / 2592000.0`;

function orderOf(q: CharacterQuery): SQL[] {
  const dir = q.sortOrder === 'asc' ? asc : desc;
  switch (q.sortBy) {
    case 'highestRating':
      return [dir(sql`(${ratingSum})::float / greatest(${ratingCount}, 1)`), desc(characters.createdAt)];
    case 'highlyRated':
      return [dir(highlyRatedScore), desc(ratingCount), desc(characters.createdAt)];
    case 'highlyRatedAndRecent':
      return [dir(sql`${highlyRatedScore} / (1 + greatest(${ageInMonths}, 0))`), desc(characters.createdAt)];
    case 'ratingCount':
      return [dir(ratingCount), desc(characters.createdAt)];
    case 'imports':
      return [dir(characters.imports), desc(characters.createdAt)];
    case 'mostRecent':
      return [dir(characters.createdAt), dir(characters.id)];
    default:
      return [dir(characters.featured), desc(characters.createdAt), asc(characters.slug)];
  }
}

/** Characters and their reviews in the database (routes and the character_slug plugin). */
export function characterStore(db: Database) {
  const columns = (accountId: string | null) => ({
    ...getTableColumns(characters),
    ratingCount,
    ratingSum,
    userRating: userRating(accountId),
  });

  return {
    /** A page of characters with their stats. */
    async list(q: CharacterQuery, accountId: string | null): Promise<CharacterRecord[]> {
      if (q.offset > MAX_OFFSET) return [];
      const where: SQL[] = [];
      if (q.search) {
        const like = `%${q.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        where.push(or(ilike(characters.name, like), ilike(characters.description, like)) as SQL);
      }
      if (q.isAdult !== undefined) where.push(eq(characters.adult, q.isAdult));
      if (q.isWebEnabled !== undefined) where.push(eq(characters.webEnabled, q.isWebEnabled));
      if (q.tags?.length) where.push(sql`${characters.tags} @> ${JSON.stringify(q.tags)}::jsonb`);
      if (q.modelId?.length) where.push(inArray(characters.modelId, q.modelId));
      const rows = await db
        .select(columns(accountId))
        .from(characters)
        .where(where.length ? and(...where) : undefined)
        .orderBy(...orderOf(q))
        .limit(q.limit)
        .offset(q.offset);
      return rows.map(presentCharacter);
    },

    /** One character by slug, or null. */
    async get(slug: string, accountId: string | null): Promise<CharacterRecord | null> {
      const [row] = await db.select(columns(accountId)).from(characters).where(eq(characters.slug, slug));
      return row ? presentCharacter(row) : null;
    },

    /** The system prompt of a character (chat requests with character_slug), or null. */
    async systemPrompt(slug: string): Promise<string | null> {
      const [row] = await db.select({ systemPrompt: characters.systemPrompt }).from(characters).where(eq(characters.slug, slug));
      return row?.systemPrompt ?? null;
    },

    /** A page of visible reviews, newest first, with the total and the rating summary; null for an unknown slug. */
    async reviews(slug: string, page: number, pageSize: number, accountId: string | null) {
      const [character] = await db.select({ id: characters.id }).from(characters).where(eq(characters.slug, slug));
      if (!character) return null;
      const visible = and(eq(characterReviews.characterId, character.id), eq(characterReviews.visible, true));
      const [totals] = await db
        .select({ total: sql<number>`count(*)::int`, sum: sql<number>`coalesce(sum(${characterReviews.rating}), 0)::int` })
        .from(characterReviews)
        .where(visible);
      const total = totals?.total ?? 0;
      const offset = (page - 1) * pageSize;
      // A page past the end needs no query (and an offset beyond bigint would fail in SQL).
      const rows =
        offset >= total
          ? []
          : await db
              .select()
              .from(characterReviews)
              .where(visible)
              .orderBy(desc(characterReviews.createdAt), desc(characterReviews.id))
              .limit(pageSize)
              .offset(offset);
      return {
        total,
        data: rows.map((r) => presentReview(r, accountId)),
        summary: { averageRating: average(totals?.sum ?? 0, total), totalReviews: total },
      };
    },

    /** Adds a character; 409 when the slug is taken. */
    async create(input: CharacterInput): Promise<CharacterRecord> {
      const [row] = await db
        .insert(characters)
        .values({ ...input, tags: input.tags ?? [] })
        .onConflictDoNothing({ target: characters.slug })
        .returning();
      if (!row) throw new ServiceError(409, { error: `A character with slug "${input.slug}" already exists` });
      return presentCharacter({ ...row, ratingCount: 0, ratingSum: 0, userRating: null });
    },

    /** Adds a review written by `accountId`; null for an unknown slug. */
    async addReview(slug: string, input: ReviewInput, accountId: string): Promise<ReviewRecord | null> {
      const [character] = await db.select({ id: characters.id }).from(characters).where(eq(characters.slug, slug));
      if (!character) return null;
      const [row] = await db
        .insert(characterReviews)
        .values({
          characterId: character.id,
          accountId,
          username: input.username,
          rating: input.rating,
          message: input.message ?? null,
          locale: input.locale ?? null,
          userAvatarUrl: input.userAvatarUrl ?? null,
        })
        .returning();
      return presentReview(row as ReviewRow, accountId);
    },
  };
}

/** The character store type. */
export type CharacterStore = ReturnType<typeof characterStore>;
