import { Type as T, type Static } from '@sinclair/typebox';
import { ASPECT_RATIOS } from '../models/image-spec';

const literals = <V extends string>(values: readonly V[], o: Record<string, unknown> = {}) =>
  T.Union(
    values.map((v) => T.Literal(v)),
    o,
  );

/** Longest prompt any image route takes; the model's `promptCharacterLimit` may be lower. */
export const MAX_PROMPT_CHARACTERS = 32_768;

const Prompt = (max = MAX_PROMPT_CHARACTERS) =>
  T.String({ minLength: 1, maxLength: max, description: `1 to ${max} characters, and within the model's promptCharacterLimit` });
const Resolution = T.String({ minLength: 1, maxLength: 10, description: 'One of the model\'s resolutions ("1K", "2K", "4K")' });
const Quality = literals(['low', 'medium', 'high'], { description: 'Honoured only by models that list qualities; ignored by the others' });
const OutputFormat = literals(['jpeg', 'jpg', 'png', 'webp'], { description: 'Default: PNG for 1K, JPEG for 2K and 4K' });
const SafeMode = T.Boolean({ default: true, description: 'Blur adult content' });
const EditAspectRatio = literals(['auto', ...ASPECT_RATIOS], {
  description: '`auto`: the supported ratio closest to the (first) input image',
});
/** An input image: a file upload (multipart), a base64 string (or data URL) or an http(s) URL fetched through the SSRF guard. */
const ImageInput = T.Unknown({
  description:
    'A file (multipart), a base64 string or an http(s) URL; 65,536 to 33,177,600 pixels, under 25 MB; jpeg, png, webp, gif, avif or heic',
});

/** GenerateImageRequest (API-NOTES section 3), strict as the reference is. */
export const GenerateImageSchema = T.Object(
  {
    model: T.String({ minLength: 1, description: 'An image model id, trait or compatibility alias (GET /models?type=image)' }),
    prompt: Prompt(),
    negative_prompt: T.Optional(T.String({ maxLength: 7500 })),
    width: T.Optional(
      T.Integer({ exclusiveMinimum: 0, maximum: 1280, description: 'Used when neither resolution nor aspect_ratio is given' }),
    ),
    height: T.Optional(T.Integer({ exclusiveMinimum: 0, maximum: 1280 })),
    aspect_ratio: T.Optional(literals(ASPECT_RATIOS)),
    resolution: T.Optional(Resolution),
    quality: T.Optional(Quality),
    steps: T.Optional(T.Integer({ minimum: 1, description: "At most the model's steps.max" })),
    cfg_scale: T.Optional(T.Number({ exclusiveMinimum: 0, maximum: 20 })),
    seed: T.Optional(T.Integer({ minimum: -999_999_999, maximum: 999_999_999 })),
    lora_strength: T.Optional(T.Integer({ minimum: 0, maximum: 100 })),
    style_preset: T.Optional(T.String({ minLength: 1, description: 'One of GET /image/styles' })),
    format: T.Optional(literals(['jpeg', 'jpg', 'png', 'webp'], { default: 'webp' })),
    return_binary: T.Optional(T.Boolean({ default: false })),
    variants: T.Optional(T.Integer({ minimum: 1, maximum: 4, description: 'Images in one call (JSON answers only); each is charged' })),
    safe_mode: T.Optional(SafeMode),
    embed_exif_metadata: T.Optional(T.Boolean()),
    hide_watermark: T.Optional(T.Boolean()),
    enable_web_search: T.Optional(T.Boolean()),
    disable_prompt_optimization_thinking: T.Optional(T.Boolean()),
    inpaint: T.Optional(T.Unknown({ description: 'Deprecated; ignored' })),
  },
  { additionalProperties: false },
);
export type GenerateImageRequest = Static<typeof GenerateImageSchema>;

/** OpenAI `size` values of SimpleGenerateImageRequest. */
export const OPENAI_SIZES = ['auto', '256x256', '512x512', '1024x1024', '1536x1024', '1024x1536', '1792x1024', '1024x1792'] as const;

/** SimpleGenerateImageRequest: OpenAI's images.generate body (the fields it ignores are accepted). */
export const SimpleGenerateImageSchema = T.Object(
  {
    prompt: Prompt(1500),
    model: T.Optional(T.String({ minLength: 1, description: 'An unknown or OpenAI model name falls back to the default image model' })),
    n: T.Optional(T.Integer({ minimum: 1, maximum: 1 })),
    size: T.Optional(literals(OPENAI_SIZES)),
    response_format: T.Optional(literals(['b64_json', 'url'], { description: 'url: a data URL' })),
    output_format: T.Optional(literals(['jpeg', 'png', 'webp'])),
    moderation: T.Optional(literals(['auto', 'low'], { description: 'auto: safe mode on; low: off' })),
    quality: T.Optional(literals(['auto', 'high', 'medium', 'low', 'hd', 'standard'])),
    background: T.Optional(T.String()),
    output_compression: T.Optional(T.Integer({ minimum: 0, maximum: 100 })),
    style: T.Optional(literals(['vivid', 'natural'])),
    user: T.Optional(T.String()),
  },
  { additionalProperties: false },
);
export type SimpleGenerateImageRequest = Static<typeof SimpleGenerateImageSchema>;

const editFields = {
  prompt: Prompt(),
  aspect_ratio: T.Optional(EditAspectRatio),
  resolution: T.Optional(Resolution),
  quality: T.Optional(Quality),
  output_format: T.Optional(OutputFormat),
  safe_mode: T.Optional(SafeMode),
  disable_prompt_optimization_thinking: T.Optional(T.Boolean()),
};

/** EditImageRequest: one image; `modelId` is the deprecated alias of `model`. */
export const EditImageSchema = T.Object(
  {
    image: ImageInput,
    model: T.Optional(T.String({ minLength: 1, description: 'Default: firered-image-edit (else the first edit model of the catalog)' })),
    modelId: T.Optional(T.String({ minLength: 1, description: 'Deprecated: use model' })),
    ...editFields,
  },
  { additionalProperties: false },
);
export type EditImageRequest = Static<typeof EditImageSchema>;

/** MultiEditImageRequest: 1 to 3 images (files only in multipart). */
export const MultiEditImageSchema = T.Object(
  {
    images: T.Array(ImageInput, { minItems: 1, maxItems: 3, description: '1 to 3 images; the first is the one edited' }),
    model: T.Optional(T.String({ minLength: 1, description: 'Default: firered-image-edit (else the first edit model of the catalog)' })),
    modelId: T.Optional(T.String({ minLength: 1, description: 'The reference name of model' })),
    ...editFields,
  },
  { additionalProperties: false },
);
export type MultiEditImageRequest = Static<typeof MultiEditImageSchema>;

/**
 * OpenAI's images.edit body (multipart from the SDK): 1 to 3 images (`image` or `image[]`
 * uploads; in JSON a base64 string or URL, or a list of them). `size` picks the aspect ratio
 * closest to it; the fields OpenAI's models alone use (background, input_fidelity) are accepted
 * and ignored. `mask` and streamed edits are not offered: a 400 names them.
 */
export const OpenAIEditImageSchema = T.Object(
  {
    image: T.Unknown({ description: '1 to 3 images: files (`image` or `image[]`), base64 strings or http(s) URLs; the first is edited' }),
    prompt: Prompt(),
    model: T.Optional(T.String({ minLength: 1, description: 'An unknown or OpenAI model name falls back to the default edit model' })),
    n: T.Optional(T.Integer({ minimum: 1, maximum: 1 })),
    size: T.Optional(T.String({ pattern: '^(auto|\\d{2,5}x\\d{2,5})$', description: '`auto` or WIDTHxHEIGHT: its aspect ratio is used' })),
    response_format: T.Optional(literals(['b64_json', 'url'], { description: 'url: a data URL' })),
    output_format: T.Optional(literals(['jpeg', 'png', 'webp'])),
    quality: T.Optional(literals(['auto', 'high', 'medium', 'low', 'standard'])),
    moderation: T.Optional(literals(['auto', 'low'], { description: 'auto: safe mode on; low: off' })),
    background: T.Optional(T.String()),
    input_fidelity: T.Optional(T.String()),
    output_compression: T.Optional(T.Integer({ minimum: 0, maximum: 100 })),
    stream: T.Optional(T.Literal(false, { description: 'Streamed edits are not offered' })),
    user: T.Optional(T.String()),
  },
  { additionalProperties: false },
);
export type OpenAIEditImageRequest = Static<typeof OpenAIEditImageSchema>;

/** UpscaleImageRequest. */
export const UpscaleImageSchema = T.Object({
  image: ImageInput,
  model: T.Optional(T.String({ minLength: 1, description: 'Default: upscaler (else the first upscale model of the catalog)' })),
  scale: T.Optional(T.Number({ minimum: 2, maximum: 4, default: 2, description: 'Must be 2 or 4' })),
  creativity: T.Optional(T.Number({ default: 0.01, description: 'Clamped to 0..0.02' })),
});
export type UpscaleImageRequest = Static<typeof UpscaleImageSchema>;

/** BackgroundRemoveImageRequest: `image` (file or base64) or `image_url`. */
export const BackgroundRemoveSchema = T.Object(
  {
    image: T.Optional(ImageInput),
    image_url: T.Optional(T.String({ minLength: 1, description: 'An http(s) URL, fetched through the SSRF guard' })),
    model: T.Optional(
      T.String({ minLength: 1, description: 'Default: bria-bg-remover (else the first background-removal model of the catalog)' }),
    ),
  },
  { additionalProperties: false },
);
export type BackgroundRemoveRequest = Static<typeof BackgroundRemoveSchema>;

/** GenerateImageResponse (JSON). */
export const GenerateImageResponseSchema = T.Object({
  id: T.String(),
  images: T.Array(T.String({ description: 'base64' })),
  request: T.Optional(T.Unknown()),
  timing: T.Object({
    inferenceDuration: T.Number(),
    inferencePreprocessingTime: T.Number(),
    inferenceQueueTime: T.Number(),
    total: T.Number(),
  }),
});
