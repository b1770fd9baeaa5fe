import { Type as T, type Static } from '@sinclair/typebox';

/** A decimal USD amount (the catalog's own DecimalSchema, repeated here so schema.ts can import this file without a cycle). */
const DecimalSchema = T.Union([T.String({ pattern: '^\\d+(\\.\\d+)?$' }), T.Number({ minimum: 0 })]);

/** Output resolutions an image model may offer (the reference's "1K", "2K", "4K"). */
export const IMAGE_RESOLUTIONS = ['1K', '2K', '4K'] as const;

/** Aspect ratios of the reference's edit and generate schemas; `auto` follows the first input image. */
export const ASPECT_RATIOS = ['1:1', '3:2', '16:9', '21:9', '9:16', '2:3', '3:4', '4:5'] as const;

/** Quality tiers (honoured only by models that list `qualities`). */
export const QUALITY_TIERS = ['low', 'medium', 'high'] as const;

/** What an image model does: which of the image routes may name it. */
export const ImageOperationSchema = T.Union([
  T.Literal('generate'),
  T.Literal('edit'),
  T.Literal('upscale'),
  T.Literal('background-remove'),
]);
export type ImageOperation = Static<typeof ImageOperationSchema>;

const TierPrices = T.Object({ low: DecimalSchema, medium: DecimalSchema, high: DecimalSchema });

/**
 * The image-specific part of a catalog model (config `image`), published as
 * `model_spec.constraints` and `model_spec.pricing` in the reference's record shape. Prices
 * are USD per image: `pricing.perUnit` is the flat price, `resolutions` overrides it per
 * resolution and `quality` per resolution and tier.
 */
export const ImageModelSpecSchema = T.Object({
  operation: ImageOperationSchema,
  resolutions: T.Array(T.String({ minLength: 1, maxLength: 10 }), { minItems: 1, default: ['1K'] }),
  defaultResolution: T.Optional(T.String({ minLength: 1, maxLength: 10 })),
  aspectRatios: T.Array(T.String(), { default: [...ASPECT_RATIOS] }),
  defaultAspectRatio: T.String({ default: '1:1' }),
  /** Present only on the models that honour `quality`; others ignore it. */
  qualities: T.Optional(T.Array(T.Union(QUALITY_TIERS.map((q) => T.Literal(q))), { minItems: 1 })),
  defaultQuality: T.Optional(T.Union(QUALITY_TIERS.map((q) => T.Literal(q)))),
  steps: T.Object({ default: T.Integer({ minimum: 1 }), max: T.Integer({ minimum: 1 }) }, { default: { default: 8, max: 30 } }),
  widthHeightDivisor: T.Integer({ minimum: 1, default: 16 }),
  pricing: T.Object(
    {
      resolutions: T.Optional(T.Record(T.String(), DecimalSchema)),
      quality: T.Optional(T.Record(T.String(), TierPrices)),
      /** Upscalers: price per scale factor ("2x", "4x"). */
      upscale: T.Optional(T.Record(T.String(), DecimalSchema)),
      /** Multi-edit: input images included in the edit price, and the price of each additional one. */
      inputImages: T.Optional(T.Object({ included: T.Integer({ minimum: 0 }), additional: DecimalSchema })),
    },
    { default: {} },
  ),
});

/** The image part of a model's config. */
export type ImageModelSpec = Static<typeof ImageModelSpecSchema>;
