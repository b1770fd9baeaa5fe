import type { ProviderConfig } from './provider-config';
import { defaultAudioModels } from './default-audio-models';
import { defaultImageModels } from './default-image-models';
import { defaultMediaModels } from './default-media-models';
import type { Capabilities, ModelConfig } from './schema';

/** The built-in simulator provider, used when the operator configures no upstream. */
export const SIMULATOR_PROVIDER: ProviderConfig = {
  id: 'simulator',
  kind: 'simulator',
  timeoutMs: 120_000,
  options: {},
};

/** What the simulator does for a model that declares function calling (providers/simulator-chat). */
const TOOLS_AND_SCHEMAS = { supportsFunctionCalling: true, supportsResponseSchema: true } as const;

const sim = [{ provider: SIMULATOR_PROVIDER.id, weight: 1 }];
const DEFAULT_IMAGE_MODELS = defaultImageModels(sim);

/**
 * Models served by the simulator out of the box, so `npm start` answers at once.
 * Ids follow the public catalog the spec derives from; prices are per 1M tokens.
 */
export const DEFAULT_MODELS: ModelConfig[] = withSvcSystemPrompt([
  {
    id: 'llama-3.3-70b',
    name: 'Llama 3.3 70B (simulated)',
    type: 'text',
    tier: 'M',
    routes: sim,
    pricing: { input: '0.70', output: '2.80' },
    capabilities: caps({ ...TOOLS_AND_SCHEMAS, supportsLogProbs: true, supportsPromptCaching: true }),
    contextLength: 131072,
    traits: ['default', 'function_calling_default'],
    privacy: 'private',
  },
  {
    id: 'qwen3-4b',
    name: 'Qwen3 4B (simulated)',
    type: 'text',
    tier: 'XS',
    routes: sim,
    pricing: { input: '0.05', output: '0.15' },
    capabilities: caps({ ...TOOLS_AND_SCHEMAS, supportsLogProbs: true, supportsReasoning: true, supportsDisableThinking: true }),
    contextLength: 40960,
    traits: ['fastest'],
    privacy: 'private',
  },
  {
    id: 'venice-uncensored',
    name: 'Uncensored 24B (simulated)',
    type: 'text',
    tier: 'S',
    routes: sim,
    pricing: { input: '0.20', output: '0.90' },
    capabilities: caps({}),
    contextLength: 32768,
    traits: ['most_uncensored'],
    privacy: 'private',
  },
  {
    id: 'mistral-31-24b',
    name: 'Mistral 3.1 24B (simulated)',
    type: 'text',
    tier: 'S',
    routes: sim,
    pricing: { input: '0.50', output: '2.00' },
    capabilities: caps({ ...TOOLS_AND_SCHEMAS, supportsLogProbs: true, supportsVision: true, supportsMultipleImages: true }),
    contextLength: 131072,
    traits: ['default_vision'],
    privacy: 'private',
  },
  {
    id: 'qwen3-235b-a22b-thinking-2507',
    name: 'Qwen3 235B Thinking (simulated)',
    type: 'text',
    tier: 'L',
    routes: sim,
    pricing: { input: '0.45', output: '3.50', cacheInput: '0.225' },
    capabilities: caps({ ...TOOLS_AND_SCHEMAS, supportsReasoning: true, supportsPromptCaching: true, optimizedForCode: true }),
    contextLength: 262144,
    traits: ['default_reasoning', 'most_intelligent'],
    privacy: 'private',
  },
  {
    id: 'zai-org-glm-4.6',
    name: 'GLM 4.6 (simulated, deprecated)',
    type: 'text',
    tier: 'L',
    routes: sim,
    pricing: { input: '0.85', output: '2.75' },
    capabilities: caps({ ...TOOLS_AND_SCHEMAS, supportsReasoning: true }),
    contextLength: 202752,
    traits: [],
    privacy: 'private',
    deprecation: {
      date: '2027-01-15',
      message: 'zai-org-glm-4.6 is deprecated and will be removed on 2027-01-15; use qwen3-235b-a22b-thinking-2507.',
      replacementModelId: 'qwen3-235b-a22b-thinking-2507',
    },
  },
  {
    id: 'grok-41-fast',
    name: 'Grok 4.1 Fast (simulated, with simulated X search)',
    type: 'text',
    tier: 'L',
    routes: sim,
    pricing: { input: '0.50', output: '1.25' },
    capabilities: caps({ ...TOOLS_AND_SCHEMAS, supportsXSearch: true }),
    contextLength: 262144,
    traits: [],
    privacy: 'anonymized',
  },
  {
    id: 'text-embedding-bge-m3',
    name: 'BGE-M3 (simulated)',
    type: 'embedding',
    routes: sim,
    pricing: { input: '0.15' },
    dimensions: 1024,
    traits: ['default'],
    privacy: 'private',
  },
  ...DEFAULT_IMAGE_MODELS,
  ...defaultAudioModels(sim),
  ...defaultMediaModels(sim),
]);

/**
 * The default catalog's text models include the service prompt unless a request says not to,
 * as the reference API's do (spec 4.8b, `include_svc_system_prompt` defaults to true); an
 * operator's own models do not unless their entry asks (src/models/schema.ts).
 */
function withSvcSystemPrompt(models: ModelConfig[]): ModelConfig[] {
  return models.map((m) => (m.type === 'text' ? { ...m, includeSvcSystemPrompt: true } : m));
}

/** Default compatibility mapping: foreign model ids clients commonly send. */
export const DEFAULT_COMPATIBILITY_MAPPING: Record<string, Record<string, string>> = {
  text: {
    'gpt-4o': 'llama-3.3-70b',
    'gpt-4o-mini': 'qwen3-4b',
    'gpt-3.5-turbo': 'qwen3-4b',
    'deepseek-r1': 'qwen3-235b-a22b-thinking-2507',
  },
  embedding: { 'text-embedding-3-small': 'text-embedding-bge-m3' },
  tts: { 'tts-1': 'tts-kokoro', 'tts-1-hd': 'tts-kokoro', 'gpt-4o-mini-tts': 'tts-kokoro' },
  asr: { 'whisper-1': 'openai/whisper-large-v3', 'gpt-4o-transcribe': 'openai/whisper-large-v3' },
  image: { 'dall-e-3': 'z-image-turbo', 'dall-e-2': 'z-image-turbo', 'gpt-image-1': 'gpt-image-2' },
};

function caps(on: Partial<Capabilities>): Capabilities {
  return {
    quantization: 'not-available',
    supportsReasoning: false,
    supportsReasoningEffort: false,
    supportsDisableThinking: false,
    supportsVision: false,
    supportsMultipleImages: false,
    supportsAudioInput: false,
    supportsVideoInput: false,
    supportsFunctionCalling: false,
    supportsWebSearch: true,
    supportsXSearch: false,
    supportsPromptCaching: false,
    supportsLogProbs: false,
    supportsResponseSchema: false,
    supportsTeeAttestation: false,
    supportsE2EE: false,
    optimizedForCode: false,
    ...on,
  };
}
