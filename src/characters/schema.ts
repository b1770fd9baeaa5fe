import { Type as T, type Static } from '@sinclair/typebox';

const Slug = T.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[a-z0-9][a-z0-9-]*$',
  description: 'Public identifier used in paths and in character_slug',
});
const Url = T.String({ pattern: '^https?://', maxLength: 2048 });
const Nullable = <S extends ReturnType<typeof T.String>>(s: S) => T.Optional(T.Union([s, T.Null()]));

/** A review as an ADMIN adds it (POST /characters/{slug}/reviews) or the seed file lists it. */
export const ReviewInput = T.Object(
  {
    username: T.String({ minLength: 1, maxLength: 64, description: 'Display name chosen by the reviewer' }),
    rating: T.Integer({ minimum: 1, maximum: 5 }),
    message: Nullable(T.String({ maxLength: 4000 })),
    locale: Nullable(T.String({ maxLength: 35 })),
    userAvatarUrl: Nullable(Url),
  },
  { additionalProperties: false },
);
export type ReviewInput = Static<typeof ReviewInput>;

/** A character as an ADMIN adds it (POST /characters) or the seed file lists it. */
export const CharacterInput = T.Object(
  {
    slug: Slug,
    name: T.String({ minLength: 1, maxLength: 200 }),
    description: Nullable(T.String({ maxLength: 4000 })),
    systemPrompt: T.String({
      minLength: 1,
      maxLength: 100_000,
      description: 'Applied when a chat request sets svc_parameters.character_slug',
    }),
    modelId: T.String({ minLength: 1 }),
    author: T.Optional(T.String({ minLength: 1, maxLength: 64 })),
    tags: T.Optional(T.Array(T.String({ minLength: 1, maxLength: 50 }), { maxItems: 20 })),
    adult: T.Optional(T.Boolean()),
    featured: T.Optional(T.Boolean()),
    webEnabled: T.Optional(T.Boolean()),
    photoUrl: Nullable(Url),
    shareUrl: Nullable(Url),
  },
  { additionalProperties: false },
);
export type CharacterInput = Static<typeof CharacterInput>;

/** One character of the seed file, with its reviews. */
export const SeedCharacter = T.Composite([
  CharacterInput,
  T.Object({
    reviews: T.Optional(
      T.Array(T.Composite([ReviewInput, T.Object({ createdAt: T.Optional(T.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T' })) })])),
    ),
  }),
]);

/** The seed file: `characters: [...]`. */
export const SeedFile = T.Object({ characters: T.Array(SeedCharacter) });
export type SeedFile = Static<typeof SeedFile>;
