import type { LedgerCharge } from '../../src/billing/ledger-row';

/** This process's CPU time so far, in µs (user + system). */
export function ownCpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** A typical chat settlement's ledger row (two token lines), as the ledger-cost benches write it. */
export function benchCharge(accountId: string, apiKeyId: string | null, requestId: string): LedgerCharge {
  return {
    accountId,
    apiKeyId,
    requestId,
    currency: 'USD',
    modelId: 'bench-model',
    lines: [
      { sku: 'bench-model-llm-input-mtoken', units: '0.000012', pricePerUnitUsd: '0.010000', amount: -1 },
      { sku: 'bench-model-llm-output-mtoken', units: '0.000050', pricePerUnitUsd: '0.010000', amount: -1 },
    ],
    amount: -2,
    promptTokens: 12,
    completionTokens: 50,
    executionMs: 7,
    at: Date.now(),
  };
}
