import { Elysia, t } from 'elysia';
import { charactersOf } from '../characters';
import { CharacterInput, ReviewInput } from '../characters/schema';
import { CHARACTER_SORTS } from '../characters/store';
import type { AppDeps } from '../deps';
import type { Stages } from '../gates';
import { ErrorBody } from '../http/error-body';
import { invalidField, notFound } from '../http/errors';

const Character = t.Object({
  id: t.String(),
  slug: t.String(),
  name: t.String(),
  description: t.Union([t.String(), t.Null()]),
  author: t.String(),
  adult: t.Boolean(),
  featured: t.Boolean(),
  webEnabled: t.Boolean(),
  createdAt: t.String({ format: 'date-time' }),
  updatedAt: t.String({ format: 'date-time' }),
  shareUrl: t.Union([t.String(), t.Null()]),
  photoUrl: t.Union([t.String(), t.Null()]),
  stats: t.Object({
    averageRating: t.Number(),
    imports: t.Integer(),
    ratingCount: t.Integer(),
    ratingSum: t.Integer(),
    userRating: t.Union([t.Integer(), t.Null()]),
  }),
  tags: t.Array(t.String()),
  modelId: t.String(),
});

const Review = t.Object({
  id: t.String(),
  characterId: t.String(),
  createdAt: t.String({ format: 'date-time' }),
  isOwner: t.Boolean({ description: 'True when the authenticated caller wrote the review' }),
  locale: t.Union([t.String(), t.Null()]),
  message: t.Union([t.String(), t.Null()]),
  rating: t.Integer({ minimum: 1, maximum: 5 }),
  userAvatarUrl: t.Union([t.String(), t.Null()]),
  username: t.String(),
});

const ReviewList = t.Object({
  data: t.Array(Review),
  object: t.Literal('list'),
  pagination: t.Object({
    page: t.Integer({ minimum: 1 }),
    pageSize: t.Integer({ minimum: 1 }),
    total: t.Integer({ minimum: 0 }),
    totalPages: t.Integer({ minimum: 0 }),
  }),
  summary: t.Object({ averageRating: t.Number(), totalReviews: t.Integer({ minimum: 0 }) }),
});

const Bool = t.Union([t.Literal('true'), t.Literal('false')]);
// Bounds are checked by `bounded`, not by the schema: Elysia reports a coerced query
// integer's minimum/maximum failure without the field name (type "property", empty path).
const ListQuery = t.Object({
  limit: t.Optional(t.Integer({ default: 50, description: '0 < limit <= 100; default 50' })),
  offset: t.Optional(t.Integer({ default: 0, description: '>= 0; default 0' })),
  search: t.Optional(t.String({ maxLength: 200 })),
  isAdult: t.Optional(Bool),
  isWebEnabled: t.Optional(Bool),
  tags: t.Optional(
    t.Array(t.String({ maxLength: 50 }), {
      maxItems: 20,
      description: 'Characters having all these tags (repeat the parameter or comma-separate)',
    }),
  ),
  modelId: t.Optional(t.Array(t.String({ maxLength: 200 }), { maxItems: 20, description: 'Characters of any of these models' })),
  sortBy: t.Optional(t.Union(CHARACTER_SORTS.map((v) => t.Literal(v)))),
  sortOrder: t.Optional(t.Union([t.Literal('asc'), t.Literal('desc')])),
});
const ReviewsQuery = t.Object({
  page: t.Optional(t.Integer({ default: 1, description: 'Page number, > 0; default 1' })),
  pageSize: t.Optional(t.Integer({ default: 20, description: 'Reviews per page, > 0, max 100; default 20' })),
});
const SlugParams = t.Object({ slug: t.String({ minLength: 1 }) });
/** A query integer within bounds, or its default; 400 DetailedError naming the field otherwise. */
function bounded(name: string, value: number | undefined, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (value < min) throw invalidField(name, `must be at least ${min}`, 'query');
  if (value > max) throw invalidField(name, `must be at most ${max}`, 'query');
  return value;
}
const flag = (v: 'true' | 'false' | undefined) => (v === undefined ? undefined : v === 'true');
const tags = ['Characters', 'Preview'];
const characterNotFound = () => notFound('Character not found');

/**
 * Characters (spec 4.1, 2.1, 2.2; API-NOTES section 7): list, get, reviews with pagination
 * headers and summary for any authenticated caller; ADMIN keys add characters and reviews.
 */
export function characterRoutes(deps: AppDeps, stages: Stages) {
  const characters = charactersOf(deps);
  const store = async () => {
    await characters.ready;
    return characters.store;
  };
  const accountOf = (caller: { accountId: string } | null) => caller?.accountId ?? null;

  return new Elysia({ name: 'svc.routes.characters' })
    .use(stages)
    .get(
      '/characters',
      async function listCharacters({ query, svc }) {
        const q = {
          ...query,
          limit: bounded('limit', query.limit, 50, 1, 100),
          offset: bounded('offset', query.offset, 0, 0),
          isAdult: flag(query.isAdult),
          isWebEnabled: flag(query.isWebEnabled),
        };
        return { object: 'list' as const, data: await (await store()).list(q, accountOf(svc.caller)) };
      },
      {
        auth: 'ADMIN',
        query: ListQuery,
        response: { 200: t.Object({ object: t.Literal('list'), data: t.Array(Character) }) },
        detail: { operationId: 'listCharacters', summary: 'List characters', tags },
      },
    )
    .get(
      '/characters/:slug',
      async function getCharacterBySlug({ params, svc }) {
        const data = await (await store()).get(params.slug, accountOf(svc.caller));
        if (!data) throw characterNotFound();
        return { object: 'character' as const, data };
      },
      {
        auth: 'ADMIN',
        params: SlugParams,
        response: { 200: t.Object({ object: t.Literal('character'), data: Character }), 404: ErrorBody },
        detail: { operationId: 'getCharacterBySlug', summary: 'Get a character by slug', tags },
      },
    )
    .get(
      '/characters/:slug/reviews',
      async function getCharacterReviews({ params, query, svc, set }) {
        const page = bounded('page', query.page, 1, 1);
        const pageSize = bounded('pageSize', query.pageSize, 20, 1, 100);
        const found = await (await store()).reviews(params.slug, page, pageSize, accountOf(svc.caller));
        if (!found) throw characterNotFound();
        const totalPages = Math.ceil(found.total / pageSize);
        set.headers['x-pagination-limit'] = String(pageSize);
        set.headers['x-pagination-page'] = String(page);
        set.headers['x-pagination-total'] = String(found.total);
        set.headers['x-pagination-total-pages'] = String(totalPages);
        return {
          data: found.data,
          object: 'list' as const,
          pagination: { page, pageSize, total: found.total, totalPages },
          summary: found.summary,
        };
      },
      {
        auth: 'ADMIN',
        params: SlugParams,
        query: ReviewsQuery,
        response: { 200: ReviewList, 404: ErrorBody },
        detail: { operationId: 'getCharacterReviews', summary: 'List character reviews (experimental)', tags },
      },
    )
    .post(
      '/characters',
      async function createCharacter({ body }) {
        return { object: 'character' as const, data: await (await store()).create(body) };
      },
      {
        auth: 'ADMIN',
        parse: 'json',
        body: CharacterInput,
        response: { 200: t.Object({ object: t.Literal('character'), data: Character }) },
        detail: { operationId: 'createCharacter', summary: 'Add a character (ADMIN)', tags },
      },
    )
    .post(
      '/characters/:slug/reviews',
      async function createCharacterReview({ params, body, svc }) {
        const data = await (await store()).addReview(params.slug, body, (svc.caller as { accountId: string }).accountId);
        if (!data) throw characterNotFound();
        return { object: 'review' as const, data };
      },
      {
        auth: 'ADMIN',
        params: SlugParams,
        parse: 'json',
        body: ReviewInput,
        response: { 200: t.Object({ object: t.Literal('review'), data: Review }), 404: ErrorBody },
        detail: { operationId: 'createCharacterReview', summary: "Add a review written by the caller's account (ADMIN)", tags },
      },
    );
}
