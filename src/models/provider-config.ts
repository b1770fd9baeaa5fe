import { Type as T, type Static } from '@sinclair/typebox';

const MIB = 1024 * 1024;
const ResponseByteLimit = T.Integer({ minimum: 1024 });

/**
 * The upstream answer limits when the config gives none: far above any legitimate answer
 * (2,048 embeddings of 3,072 floats as JSON text are ~130 MB; ten 4K images as base64 JSON
 * ~300 MB; an hour of 24 kHz WAV ~170 MB), yet a bound on what one upstream can make svc hold.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = {
  chat: 64 * MIB,
  embed: 256 * MIB,
  images: 512 * MIB,
  speech: 256 * MIB,
  transcribe: 64 * MIB,
} as const;

/** The per-capability answer limits of one provider, in bytes. */
export type ResponseLimits = Record<keyof typeof DEFAULT_MAX_RESPONSE_BYTES, number>;

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
      T.Union([
        T.Literal('chat'),
        T.Literal('embed'),
        T.Literal('images'),
        T.Literal('speech'),
        T.Literal('transcribe'),
        T.Literal('rpc'),
        T.Literal('jobs'),
      ]),
    ),
  ),
  /** Total time allowed for one upstream call before the first byte, in ms. */
  timeoutMs: T.Integer({ minimum: 1, default: 120_000 }),
  /**
   * Largest upstream answer read, in bytes, per capability (DEFAULT_MAX_RESPONSE_BYTES for the
   * ones left out). A larger answer is not read further and counts as a broken answer.
   */
  maxResponseBytes: T.Optional(
    T.Partial(
      T.Object({
        chat: ResponseByteLimit,
        embed: ResponseByteLimit,
        images: ResponseByteLimit,
        speech: ResponseByteLimit,
        transcribe: ResponseByteLimit,
      }),
    ),
  ),
  options: T.Record(T.String(), T.Unknown(), { default: {} }),
});

/** A configured upstream provider entry. */
export type ProviderConfig = Static<typeof ProviderConfigSchema>;
