import type { RequestRecord } from '../../src/request-log/record';

/** A JSON chat request's request-log record, as the request log keeps it under the bench. */
export function benchRecord(accountId: string, requestId: string, at: number): RequestRecord {
  return {
    requestId,
    at,
    accountId,
    apiKeyId: null,
    method: 'POST',
    route: '/api/v1/chat/completions',
    model: 'bench-model',
    replica: 'bench',
    status: 200,
    error: null,
    latencyMs: 3,
    ttfbMs: 3,
    stream: null,
    stages: { auth_ms: 0.01, admission_ms: 0.02, plugins_ms: 0.01, upstream_ttfb_ms: 1.2, upstream_ms: 1.3, settlement_ms: 0.05 },
    upstreamMs: 1,
    cache: 'MISS',
    guardrails: null,
    promptTokens: 12,
    completionTokens: 50,
    costMicros: 2,
    currency: 'USD',
    clientIp: '127.0.0.1',
    userAgent: 'autocannon',
  };
}
