/** The model every svc request names; routed to the bench upstream. */
export const BENCH_MODEL = 'bench-model';

/**
 * The svc config the bench runs with: one openai-compatible provider, one cheap XS model.
 * The limiter stays on the hot path (every request is counted); its limits are only set out
 * of the load's reach, so the phases measure serving, not 429s.
 */
export function benchConfig(upstreamUrl: string) {
  const unlimited = { text: { XS: { rpm: 1_000_000_000, tpm: 1_000_000_000_000 } } };
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
    ],
    rateLimits: { standard: unlimited, partner: unlimited },
  };
}
