import { Type as T, type Static } from '@sinclair/typebox';
import { AudioModelSpecSchema } from './audio-spec';
import { ImageModelSpecSchema } from './image-spec';
import { MusicModelSpecSchema, VideoModelSpecSchema } from './media-spec';

/** Model types served by /models: exactly the reference API's enumeration. */
export const MODEL_TYPES = ['asr', 'embedding', 'image', 'music', 'text', 'tts', 'upscale', 'inpaint', 'video'] as const;

/** A model type of the catalog. */
export const ModelTypeSchema = T.Union(MODEL_TYPES.map((v) => T.Literal(v)));
export type ModelType = Static<typeof ModelTypeSchema>;

/** Rate-limit tier of a text model (spec 8.1). */
export const ModelTierSchema = T.Union([T.Literal('XS'), T.Literal('S'), T.Literal('M'), T.Literal('L')]);
export type ModelTier = Static<typeof ModelTierSchema>;

/** A decimal USD amount; strings keep prices exact, plain YAML numbers are accepted too. */
export const DecimalSchema = T.Union([T.String({ pattern: '^\\d+(\\.\\d+)?$' }), T.Number({ minimum: 0 })]);

/** Prices in USD. Text: per 1M tokens. Others: per unit (image, audio second, call). */
export const PricingSchema = T.Object({
  input: T.Optional(DecimalSchema),
  output: T.Optional(DecimalSchema),
  cacheInput: T.Optional(DecimalSchema),
  cacheWrite: T.Optional(DecimalSchema),
  perUnit: T.Optional(DecimalSchema),
  /** DIEM prices default to the USD ones (1 DIEM buys 1 USD of inference). */
  diemPerUsd: T.Optional(DecimalSchema),
});

/** One upstream replica serving a model. */
export const ModelRouteSchema = T.Object({
  provider: T.String({ minLength: 1 }),
  /** The model name the upstream expects; defaults to the svc model id. */
  model: T.Optional(T.String({ minLength: 1 })),
  weight: T.Integer({ minimum: 1, default: 1 }),
});

/** The reasoning_effort values of the reference (`none` means thinking can be turned off). */
export const ReasoningEffortSchema = T.Union(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'].map((v) => T.Literal(v)));

/**
 * Capability flags. The reference's flags are published under model_spec.capabilities (a
 * closed schema); svc's own two (supportsDisableThinking, supportsPromptCaching) are
 * published under model_spec.svcCapabilities.
 */
export const CapabilitiesSchema = T.Object({
  quantization: T.Union(
    ['fp4', 'fp8', 'fp16', 'bf16', 'int8', 'int4', 'not-available'].map((v) => T.Literal(v)),
    {
      default: 'not-available',
    },
  ),
  supportsReasoning: T.Boolean({ default: false }),
  supportsReasoningEffort: T.Boolean({ default: false }),
  reasoningEffortOptions: T.Optional(T.Array(ReasoningEffortSchema, { minItems: 1 })),
  defaultReasoningEffort: T.Optional(ReasoningEffortSchema),
  supportsDisableThinking: T.Boolean({ default: false }),
  supportsVision: T.Boolean({ default: false }),
  supportsMultipleImages: T.Boolean({ default: false }),
  maxImages: T.Optional(T.Integer({ minimum: 1 })),
  supportsAudioInput: T.Boolean({ default: false }),
  supportsVideoInput: T.Boolean({ default: false }),
  supportsFunctionCalling: T.Boolean({ default: false }),
  supportsWebSearch: T.Boolean({ default: true }),
  supportsXSearch: T.Boolean({ default: false }),
  supportsPromptCaching: T.Boolean({ default: false }),
  supportsLogProbs: T.Boolean({ default: false }),
  supportsResponseSchema: T.Boolean({ default: false }),
  supportsTeeAttestation: T.Boolean({ default: false }),
  supportsE2EE: T.Boolean({ default: false }),
  optimizedForCode: T.Boolean({ default: false }),
});

/** The capability flags of a model, as configured. */
export type Capabilities = Static<typeof CapabilitiesSchema>;

/** A model of the catalog, as written in config. */
export const ModelConfigSchema = T.Object({
  id: T.String({ minLength: 1, pattern: '^[A-Za-z0-9_./-]+$' }),
  name: T.Optional(T.String()),
  description: T.Optional(T.String()),
  type: ModelTypeSchema,
  tier: T.Optional(ModelTierSchema),
  routes: T.Array(ModelRouteSchema, { minItems: 1 }),
  /** Models of the same type tried in order when every replica of this one is at capacity or failing before the first byte. */
  fallbacks: T.Optional(T.Array(T.String({ minLength: 1 }), { maxItems: 10 })),
  pricing: PricingSchema,
  capabilities: T.Optional(CapabilitiesSchema),
  contextLength: T.Optional(T.Integer({ minimum: 1 })),
  maxCompletionTokens: T.Optional(T.Integer({ minimum: 1 })),
  /**
   * Text models: whether the service prompt (config `systemPrompt`) goes in front of a request
   * that does not say (`svc_parameters.include_svc_system_prompt`). Off unless set: an
   * operator's model has its own chat template and gets no prompt it was not given. The
   * default catalog sets it, as the reference API includes its prompt by default.
   */
  includeSvcSystemPrompt: T.Optional(
    T.Boolean({ description: 'Text models: the service prompt (systemPrompt) goes first unless the request says not to; default false' }),
  ),
  /** Text models: the largest `n` (choices per request) accepted; each choice is reserved in full. */
  maxChoices: T.Optional(T.Integer({ minimum: 1, maximum: 128 })),
  promptCharacterLimit: T.Optional(T.Integer({ minimum: 1 })),
  /** Embedding models: the vector size, and the largest `dimensions` a request may ask for. */
  dimensions: T.Optional(T.Integer({ minimum: 1 })),
  traits: T.Array(T.String(), { default: [] }),
  privacy: T.Union([T.Literal('private'), T.Literal('anonymized')], { default: 'private' }),
  deprecation: T.Optional(
    T.Object({
      date: T.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}' }),
      message: T.Optional(T.String()),
      replacementModelId: T.Optional(T.String()),
    }),
  ),
  /** Image, edit and upscale models: resolutions, aspect ratios, quality tiers and per-image prices. */
  image: T.Optional(ImageModelSpecSchema),
  /** Speech and transcription models: voices, output formats and voice cloning. */
  audio: T.Optional(AudioModelSpecSchema),
  /** Video models: durations, resolutions, aspect ratios, inputs and per-second prices (src/jobs). */
  video: T.Optional(VideoModelSpecSchema),
  /** Music and sound-effect models (asynchronous audio jobs): durations, options and pricing. */
  music: T.Optional(MusicModelSpecSchema),
  /** Free-form constraints published as model_spec.constraints. */
  constraints: T.Optional(T.Record(T.String(), T.Unknown())),
});

/** A model entry as configured. */
export type ModelConfig = Static<typeof ModelConfigSchema>;
