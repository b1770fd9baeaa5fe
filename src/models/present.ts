import { microsToNumber } from '../billing/money';
import type { ModelEntry } from './catalog';
import type { AudioModelSpec } from './audio-spec';
import type { Capabilities } from './schema';

/**
 * The model families' parts of a model's record, handed in by the wiring (src/routes/models.ts):
 * the catalog sits below the image, media-job and audio families and imports none of them.
 */
export interface FamilyPresenters {
  isImageModel(m: ModelEntry): boolean;
  /** The pricing of a model with an image spec. */
  imagePricing(m: ModelEntry): Record<string, unknown>;
  imageConstraints(m: ModelEntry): Record<string, unknown>;
  videoConstraints(m: ModelEntry): Record<string, unknown> | null;
  /** A music model's limits, at the top of model_spec. */
  musicSpec(m: ModelEntry): Record<string, unknown> | null;
  /** The formats a voice sample may come in when the model names none. */
  voiceSampleFormats: readonly string[];
}

const usdDiem = (micros: number) => ({ usd: microsToNumber(micros), diem: microsToNumber(micros) });

/** Pricing in the reference's shape for the model's type (one member of its `pricing` anyOf). */
function pricing(m: ModelEntry, families: FamilyPresenters): Record<string, unknown> {
  const p = m.prices;
  // Models with an image spec publish resolution, quality and upscale prices (src/images/model.ts).
  if (m.config.image) return families.imagePricing(m);
  const unit = usdDiem(p.perUnit);
  switch (m.type) {
    case 'text':
      return {
        input: usdDiem(p.inputPerMillion),
        output: usdDiem(p.outputPerMillion),
        ...(m.config.pricing.cacheInput !== undefined ? { cache_input: usdDiem(p.cacheInputPerMillion) } : {}),
        ...(m.config.pricing.cacheWrite !== undefined ? { cache_write: usdDiem(p.cacheWritePerMillion) } : {}),
      };
    case 'embedding':
      return { input: usdDiem(p.inputPerMillion) };
    case 'upscale':
      return { upscale: { '2x': unit, '4x': unit } };
    case 'inpaint':
      return { inpaint: unit };
    case 'asr':
      return { per_audio_second: unit };
    case 'tts':
      // The reference's TTS pricing: USD per 1M input characters.
      return { input: usdDiem(p.inputPerMillion) };
    case 'music':
    case 'video':
      return { per_second: unit };
    default:
      return { generation: unit };
  }
}

/**
 * model_spec.capabilities with exactly the reference's members (its schema is closed): every
 * required flag, and the optional ones only where the reference says they apply.
 */
export function presentCapabilities(caps: Partial<Capabilities> | undefined) {
  const c = caps ?? {};
  const flag = (v: boolean | undefined) => v === true;
  const effort = flag(c.supportsReasoningEffort);
  const multipleImages = flag(c.supportsMultipleImages);
  return {
    optimizedForCode: flag(c.optimizedForCode),
    quantization: c.quantization ?? 'not-available',
    supportsFunctionCalling: flag(c.supportsFunctionCalling),
    supportsAudioInput: flag(c.supportsAudioInput),
    supportsReasoning: flag(c.supportsReasoning),
    supportsReasoningEffort: effort,
    ...(effort && c.reasoningEffortOptions ? { reasoningEffortOptions: c.reasoningEffortOptions } : {}),
    ...(effort && c.defaultReasoningEffort ? { defaultReasoningEffort: c.defaultReasoningEffort } : {}),
    supportsResponseSchema: flag(c.supportsResponseSchema),
    supportsMultipleImages: multipleImages,
    ...(multipleImages && c.maxImages ? { maxImages: c.maxImages } : {}),
    supportsVision: flag(c.supportsVision),
    supportsVideoInput: flag(c.supportsVideoInput),
    supportsWebSearch: c.supportsWebSearch !== false,
    supportsLogProbs: flag(c.supportsLogProbs),
    supportsTeeAttestation: flag(c.supportsTeeAttestation),
    supportsE2EE: flag(c.supportsE2EE),
    supportsXSearch: flag(c.supportsXSearch),
  };
}

/** What a simulated model says of itself in /models. */
const SIMULATED_DESCRIPTION: Partial<Record<ModelEntry['type'], string>> = {
  text: 'Served by the built-in simulator, no model weights: canned answers that follow the request (tool calls, JSON formats, n, stop, logprobs).',
  embedding: 'Served by the built-in simulator, no model weights: deterministic unit vectors.',
  image: 'Served by the built-in simulator, no model weights: pictures drawn with sharp and labelled SIMULATED.',
  inpaint: 'Served by the built-in simulator, no model weights: a visible deterministic edit of the input, labelled SIMULATED.',
  upscale: 'Served by the built-in simulator, no model weights: a lanczos resize.',
  tts: 'Served by the built-in simulator, no model weights: a tone sequence as long as the text at the asked speed, really encoded (mp3, wav, pcm).',
  asr: "Served by the built-in simulator, no model weights: a deterministic transcript as long as the file's real duration.",
  video:
    'Served by the built-in simulator, no model weights: a real H.264 MP4 of moving colour bands, after a few seconds as a queued job.',
  music: 'Served by the built-in simulator, no model weights: a real WAV melody of the asked length, after a few seconds as a queued job.',
};

/** The ModelResponse record of GET /models (reference API-NOTES section 2). */
export function presentModel(m: ModelEntry, createdAt: number, families: FamilyPresenters) {
  const c = m.config;
  const spec: Record<string, unknown> = {
    name: m.name,
    description: c.description ?? (m.simulated ? (SIMULATED_DESCRIPTION[m.type] ?? SIMULATED_DESCRIPTION.text) : undefined),
    privacy: c.privacy,
    offline: false,
    beta: false,
    traits: c.traits,
    modelSource: m.simulated ? 'svc-simulator' : c.routes.map((r) => r.provider).join(','),
    pricing: pricing(m, families),
  };
  if (m.simulated) spec.simulator = true;
  if (m.type === 'text') {
    spec.availableContextTokens = c.contextLength ?? 32768;
    if (c.maxCompletionTokens) spec.maxCompletionTokens = c.maxCompletionTokens;
    spec.capabilities = presentCapabilities(c.capabilities);
    spec.svcCapabilities = {
      supportsDisableThinking: c.capabilities?.supportsDisableThinking === true,
      supportsPromptCaching: c.capabilities?.supportsPromptCaching === true,
    };
    spec.constraints = c.constraints ?? { temperature: { default: 0.7 }, top_p: { default: 0.9 } };
  } else if (families.isImageModel(m)) spec.constraints = { ...families.imageConstraints(m), ...c.constraints };
  else if (m.config.video) spec.constraints = { ...families.videoConstraints(m), ...c.constraints };
  else if (c.constraints) spec.constraints = c.constraints;
  if (m.type === 'embedding' && c.dimensions) {
    // A request may ask for up to `dimensions` (POST /embeddings), so custom dimensions are supported.
    spec.embeddingDimensions = c.dimensions;
    spec.supportsCustomDimensions = true;
  }
  if (c.audio) Object.assign(spec, presentAudio(c.audio, families.voiceSampleFormats));
  // Music models publish their limits at the top of model_spec (none of the reference's constraint shapes is theirs).
  if (m.config.music) Object.assign(spec, families.musicSpec(m));
  else if (c.promptCharacterLimit) spec.constraints = { ...(spec.constraints as object), promptCharacterLimit: c.promptCharacterLimit };
  if (c.deprecation)
    spec.deprecation = {
      autoRemap: false,
      date: c.deprecation.date,
      removesAt: c.deprecation.date,
      ...(c.deprecation.replacementModelId ? { replacementModelId: c.deprecation.replacementModelId } : {}),
    };
  return {
    id: m.id,
    object: 'model' as const,
    owned_by: 'svc',
    type: m.type,
    created: createdAt,
    ...(m.type === 'text' ? { context_length: c.contextLength ?? 32768 } : {}),
    model_spec: spec,
  };
}

/** The reference's TTS fields of model_spec: voices, voice cloning, and svc's formats and input limit. */
function presentAudio(a: AudioModelSpec, sampleFormats: readonly string[]): Record<string, unknown> {
  return {
    ...(a.voices ? { voices: a.voices } : {}),
    ...(a.voiceCloning
      ? {
          voice_cloning: {
            mode: a.voiceCloning.mode,
            accepted_formats: a.voiceCloning.acceptedFormats ?? [...sampleFormats],
            min_sample_seconds: a.voiceCloning.minSampleSeconds,
            retention_days: a.voiceCloning.retentionDays,
          },
        }
      : {}),
    ...(a.formats ? { supported_formats: a.formats, default_format: a.formats.includes('mp3') ? 'mp3' : a.formats[0] } : {}),
    ...(a.defaultVoice ? { default_voice: a.defaultVoice } : {}),
    prompt_character_limit: a.maxInputCharacters ?? 4096,
  };
}

/** Deprecation headers (spec 9) for a model scheduled for deprecation; empty otherwise. */
export function deprecationHeaders(m: ModelEntry): Record<string, string> {
  const d = m.config.deprecation;
  if (!d) return {};
  return {
    'x-svc-model-deprecation-warning': d.message ?? `The model ${m.id} is deprecated and will be removed on ${d.date}.`,
    'x-svc-model-deprecation-date': d.date,
  };
}
