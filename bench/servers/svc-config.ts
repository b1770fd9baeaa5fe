/** The model every svc request names; routed to the bench upstream. */
export const BENCH_MODEL = 'bench-model';
/** The embedding model of the embeddings phase. */
export const BENCH_EMBED_MODEL = 'bench-embed';
/** The image generation and edit models of the images phase. */
export const BENCH_IMAGE_MODEL = 'bench-image';
export const BENCH_EDIT_MODEL = 'bench-image-edit';
/** The speech, video job and RPC network of the families phase (bench/phases/families.ts). */
export const BENCH_TTS_MODEL = 'bench-tts';
export const BENCH_VIDEO_MODEL = 'bench-video';
export const BENCH_RPC_NETWORK = 'bench-mainnet';

/** 1K, 1:1 only: generations and edits are 1024 x 1024, the size the bench upstream answers. */
const imageSpec = (operation: 'generate' | 'edit') => ({
  operation,
  resolutions: ['1K'],
  aspectRatios: ['1:1'],
  defaultAspectRatio: '1:1',
  steps: { default: 8, max: 30 },
  widthHeightDivisor: 16,
  pricing: {},
});

/** A video model of the media-jobs upstream: 5 s at 720p, no audio, no inputs. */
const videoModel = {
  id: BENCH_VIDEO_MODEL,
  type: 'video',
  routes: [{ provider: 'bench-jobs' }],
  pricing: { perUnit: '0.10' },
  video: { durations: ['5s'], resolutions: ['720p'], aspectRatios: ['16:9'], pricing: { perSecond: { '720p': '0.10' } } },
};

/**
 * The svc config the bench runs with: one openai-compatible provider, one cheap XS model, an
 * embedding model, an image generation and edit model, a speech model and a JSON-RPC network
 * on the same upstream, and with `jobsUrl` a video model on a media-jobs upstream.
 * The limiter stays on the hot path (every request is counted); its limits are only set out
 * of the load's reach, so the phases measure serving, not 429s.
 */
export function benchConfig(upstreamUrl: string, jobsUrl?: string) {
  const many = 1_000_000_000;
  const unlimited = {
    text: { XS: { rpm: many, tpm: 1_000_000_000_000 } },
    embedding: many,
    image: many,
    audio: many,
    videoQueue: many,
    videoRetrieve: many,
  };
  return {
    providers: [
      { id: 'bench', kind: 'openai-compatible', baseURL: upstreamUrl },
      ...(jobsUrl ? [{ id: 'bench-jobs', kind: 'media-jobs', baseURL: jobsUrl, apiKey: 'sk-bench' }] : []),
    ],
    models: [
      {
        id: BENCH_MODEL,
        type: 'text',
        tier: 'XS',
        routes: [{ provider: 'bench' }],
        pricing: { input: '0.01', output: '0.01' },
        capabilities: { supportsReasoning: true },
      },
      { id: BENCH_EMBED_MODEL, type: 'embedding', routes: [{ provider: 'bench' }], pricing: { input: '0.01' }, dimensions: 1024 },
      { id: BENCH_IMAGE_MODEL, type: 'image', routes: [{ provider: 'bench' }], pricing: { perUnit: '0.01' }, image: imageSpec('generate') },
      { id: BENCH_EDIT_MODEL, type: 'inpaint', routes: [{ provider: 'bench' }], pricing: { perUnit: '0.01' }, image: imageSpec('edit') },
      { id: BENCH_TTS_MODEL, type: 'tts', routes: [{ provider: 'bench' }], pricing: { input: '1' }, audio: { formats: ['wav'] } },
      ...(jobsUrl ? [videoModel] : []),
    ],
    rateLimits: { standard: unlimited, partner: unlimited },
    rpc: {
      requestsPerMinute: many,
      dailyCreditCap: 0,
      networks: [{ id: BENCH_RPC_NETWORK, family: 'evm', urls: [`${upstreamUrl}/rpc`] }],
    },
    // The runner looks for due jobs every 200 ms (default 1 s), so a job is done in a few hundred
    // ms; its idle rounds (a query each) then run through every other phase too, 5 a second.
    ...(jobsUrl ? { jobs: { pollIntervalMs: 200, minPollDelayMs: 100, maxPollDelayMs: 400, batch: 64 } } : {}),
  };
}
