import type { MetadataExtractor } from '@ai-sdk/openai-compatible';

/** What svc charged for a call, in USD and DIEM (the `cost` svc adds to answers and to a stream's usage chunk). */
export interface SvcCost {
  usd: number;
  diem: number;
}

function costOf(body: unknown): SvcCost | undefined {
  const cost = (body as { cost?: unknown } | null)?.cost as Partial<SvcCost> | undefined;
  return cost && typeof cost.usd === 'number' && typeof cost.diem === 'number' ? { usd: cost.usd, diem: cost.diem } : undefined;
}

/** Puts svc's `cost` in `providerMetadata.svc.cost` of generateText and of streamText's finish. */
export const svcCostMetadata: MetadataExtractor = {
  async extractMetadata({ parsedBody }) {
    const cost = costOf(parsedBody);
    return cost ? { svc: { cost: { ...cost } } } : undefined;
  },
  createStreamExtractor() {
    let cost: SvcCost | undefined;
    return {
      processChunk(chunk) {
        cost = costOf(chunk) ?? cost;
      },
      buildMetadata: () => (cost ? { svc: { cost: { ...cost } } } : undefined),
    };
  },
};
