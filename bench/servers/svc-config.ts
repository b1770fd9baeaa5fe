/** The model every svc request names; routed to the bench upstream. */
export const BENCH_MODEL = 'bench-model';
/** The embedding model of the embeddings phase. */
export const BENCH_EMBED_MODEL = 'bench-embed';
/** The image generation and edit models of the images phase. */
export const BENCH_IMAGE_MODEL = 'bench-image';
export const BENCH_EDIT_MODEL = 'bench-image-edit';

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

/**
 * The svc config the bench runs with: one openai-compatible provider, one cheap XS model, an
 * embedding model and an image generation and edit model.
 * The limiter stays on the hot path (every request is counted); its limits are only set out
 * of the load's reach, so the phases measure serving, not 429s.
 */
export function benchConfig(upstreamUrl: string) {
  const unlimited = { text: { XS: { rpm: 1_000_000_000, tpm: 1_000_000_000_000 } }, embedding: 1_000_000_000, image: 1_000_000_000 };
  return {
    providers: [{ id: 'bench', kind: 'openai-compatible', baseURL: upstreamUrl }],
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
    ],
    rateLimits: { standard: unlimited, partner: unlimited },
  };
}
