import { Type as T, type Static } from '@sinclair/typebox';

/** Inputs of one request at most (the reference's limit). */
export const MAX_EMBEDDING_INPUTS = 2048;

// Plain TypeBox integers: Elysia's t.Integer is a Transform that makes every body Decode.
const TokenArray = T.Array(T.Integer({ minimum: 0 }), { minItems: 1, description: 'Token ids' });
// One token array as the whole input: the reference caps it at 2,048 ids, as it does the lists.
const OneTokenArray = T.Array(T.Integer({ minimum: 0 }), { minItems: 1, maxItems: MAX_EMBEDDING_INPUTS, description: 'Token ids' });

/** The CreateEmbeddingRequest body (API-NOTES section 6), strict as the reference is. */
export const EmbeddingRequestSchema = T.Object(
  {
    input: T.Union(
      [
        T.String({ minLength: 1 }),
        T.Array(T.String({ minLength: 1 }), { minItems: 1, maxItems: MAX_EMBEDDING_INPUTS }),
        OneTokenArray,
        T.Array(TokenArray, { minItems: 1, maxItems: MAX_EMBEDDING_INPUTS }),
      ],
      { description: `A string, up to ${MAX_EMBEDDING_INPUTS} strings, a token array or up to ${MAX_EMBEDDING_INPUTS} token arrays` },
    ),
    model: T.String({ minLength: 1, description: 'An embedding model id or compatibility alias (GET /models?type=embedding)' }),
    dimensions: T.Optional(T.Integer({ minimum: 1, description: "Vector size; at most the model's own" })),
    encoding_format: T.Optional(
      T.Union([T.Literal('float'), T.Literal('base64')], { default: 'float', description: 'base64: little-endian float32' }),
    ),
    user: T.Optional(T.String({ description: 'Ignored' })),
  },
  { additionalProperties: false },
);

/** A validated embeddings request. */
export type EmbeddingRequest = Static<typeof EmbeddingRequestSchema>;

const Vector = T.Object({
  object: T.Literal('embedding'),
  index: T.Integer(),
  embedding: T.Union([T.Array(T.Number()), T.String({ description: 'base64 little-endian float32' })]),
});

/** The CreateEmbeddingResponse body. */
export const EmbeddingResponseSchema = T.Object({
  object: T.Literal('list'),
  data: T.Array(Vector),
  model: T.String(),
  usage: T.Object({ prompt_tokens: T.Integer(), total_tokens: T.Integer() }),
});

/** An embeddings response as svc sends it. */
export type EmbeddingResponse = Static<typeof EmbeddingResponseSchema>;
