/** The model every svc request names; routed to the bench upstream. */
export const BENCH_MODEL = 'bench-model';
/** The embedding model of the embeddings phase. */
export const BENCH_EMBED_MODEL = 'bench-embed';

/**
 * The svc config the bench runs with: one openai-compatible provider, one cheap XS model.
 * The limiter stays on the hot path (every request is counted); its limits are only set out
 * of the load's reach, so the phases measure serving, not 429s.
 */
export function benchConfig(upstreamUrl: string) {
  const unlimited = { text: { XS: { rpm: 1_000_000_000, tpm: 1_000_000_000_000 } }, embedding: 1_000_000_000 };
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
    ],
    rateLimits: { standard: unlimited, partner: unlimited },
  };
}
