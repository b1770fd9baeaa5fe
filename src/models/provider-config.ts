import { Type as T, type Static } from '@sinclair/typebox';

/**
 * One configured upstream. `kind` picks the adapter in providers/; adapter-specific
 * settings live in `options` and are validated by that adapter when it is built.
 */
export const ProviderConfigSchema = T.Object({
  id: T.String({ minLength: 1, pattern: '^[A-Za-z0-9_.-]+$' }),
  kind: T.String({ minLength: 1, description: 'openai-compatible | simulator | searxng | brave | ...' }),
  baseURL: T.Optional(T.String({ pattern: '^https?://' })),
  apiKey: T.Optional(T.String()),
  /** What an openai-compatible upstream serves (chat, embed, images, speech, transcribe); all of them by default. */
  capabilities: T.Optional(
    T.Array(
      T.Union([T.Literal('chat'), T.Literal('embed'), T.Literal('images'), T.Literal('speech'), T.Literal('transcribe'), T.Literal('rpc')]),
    ),
  ),
  /** Total time allowed for one upstream call before the first byte, in ms. */
  timeoutMs: T.Integer({ minimum: 1, default: 120_000 }),
  options: T.Record(T.String(), T.Unknown(), { default: {} }),
});

/** A configured upstream provider entry. */
export type ProviderConfig = Static<typeof ProviderConfigSchema>;
