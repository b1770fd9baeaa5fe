import { Type as T, type Static } from '@sinclair/typebox';
import type { ModelEntry } from '../models/catalog';
import type { ModelTier } from '../models/schema';

const Count = T.Integer({ minimum: 0, description: 'Per minute; 0 refuses every request' });
const TierLimits = T.Object(
  { rpm: T.Optional(Count), tpm: T.Optional(Count) },
  { additionalProperties: false, description: 'Requests and tokens (prompt plus completion) per minute' },
);

/** Part of a limit table (spec 8.1): what a config section or an account override may set. */
export const LimitTablePatchSchema = T.Object(
  {
    text: T.Optional(
      T.Object(
        { XS: T.Optional(TierLimits), S: T.Optional(TierLimits), M: T.Optional(TierLimits), L: T.Optional(TierLimits) },
        { additionalProperties: false },
      ),
    ),
    image: T.Optional(Count),
    audio: T.Optional(Count),
    embedding: T.Optional(Count),
    videoQueue: T.Optional(Count),
    videoRetrieve: T.Optional(Count),
  },
  { additionalProperties: false },
);
/** A partial limit table. */
export type LimitTablePatch = Static<typeof LimitTablePatchSchema>;

/** Per-account overrides (accounts.rate_limit_overrides): a table patch plus per-model limits. */
export const RateLimitOverridesSchema = T.Object(
  {
    ...LimitTablePatchSchema.properties,
    models: T.Optional(
      T.Record(T.String({ minLength: 1 }), TierLimits, { description: 'Model id -> limits; wins over the type and tier values' }),
    ),
  },
  { additionalProperties: false },
);
/** The stored shape of `accounts.rate_limit_overrides`. */
export type RateLimitOverrides = Static<typeof RateLimitOverridesSchema>;

/** A complete limit table: requests (and tokens for text) per minute. */
export interface LimitTable {
  text: Record<ModelTier, { rpm: number; tpm: number }>;
  image: number;
  audio: number;
  embedding: number;
  videoQueue: number;
  videoRetrieve: number;
}

/** The account tiers of spec 8.1. */
export type AccountTier = 'standard' | 'partner';

/** Spec 8.1, default tier. */
export const STANDARD_LIMITS: LimitTable = {
  text: {
    XS: { rpm: 500, tpm: 1_000_000 },
    S: { rpm: 75, tpm: 750_000 },
    M: { rpm: 50, tpm: 750_000 },
    L: { rpm: 20, tpm: 500_000 },
  },
  image: 20,
  audio: 60,
  embedding: 500,
  videoQueue: 40,
  videoRetrieve: 120,
};

/** Spec 8.1, partner tier; what it leaves out (video) falls back to the standard table. */
export const PARTNER_LIMITS: LimitTablePatch = {
  text: {
    XS: { rpm: 500, tpm: 2_000_000 },
    S: { rpm: 150, tpm: 1_500_000 },
    M: { rpm: 100, tpm: 1_500_000 },
    L: { rpm: 60, tpm: 1_000_000 },
  },
  image: 60,
  audio: 120,
  embedding: 500,
};

/** A copy of `base` with the values `patch` sets. */
export function applyPatch(base: LimitTable, patch: LimitTablePatch | undefined): LimitTable {
  if (!patch) return base;
  const text = { ...base.text };
  for (const tier of ['XS', 'S', 'M', 'L'] as const) text[tier] = { ...text[tier], ...patch.text?.[tier] };
  return {
    text,
    image: patch.image ?? base.image,
    audio: patch.audio ?? base.audio,
    embedding: patch.embedding ?? base.embedding,
    videoQueue: patch.videoQueue ?? base.videoQueue,
    videoRetrieve: patch.videoRetrieve ?? base.videoRetrieve,
  };
}

/** Which video operation a request is: queueing a job or polling for it. */
export type VideoOperation = 'queue' | 'retrieve';

/** The limits in force for one model: requests per minute, and tokens per minute for text (else null). */
export interface ModelLimits {
  rpm: number;
  tpm: number | null;
}

/** The limits a table (plus per-model overrides) sets for `model`. */
export function modelLimits(
  table: LimitTable,
  perModel: RateLimitOverrides['models'],
  model: ModelEntry,
  video: VideoOperation = 'queue',
): ModelLimits {
  const own = perModel?.[model.id];
  let base: ModelLimits;
  switch (model.type) {
    case 'text': {
      const tier = table.text[model.tier];
      base = { rpm: tier.rpm, tpm: tier.tpm };
      break;
    }
    case 'image':
    case 'upscale':
    case 'inpaint':
      base = { rpm: table.image, tpm: null };
      break;
    case 'embedding':
      base = { rpm: table.embedding, tpm: null };
      break;
    case 'video':
      base = { rpm: video === 'retrieve' ? table.videoRetrieve : table.videoQueue, tpm: null };
      break;
    default:
      // audio, tts, asr, music
      base = { rpm: table.audio, tpm: null };
  }
  if (!own) return base;
  return { rpm: own.rpm ?? base.rpm, tpm: base.tpm === null ? null : (own.tpm ?? base.tpm) };
}
