import type { StageDurations } from './stages';

/** One request as the log stores it (times in epoch ms and ms, money in micro-units). */
export interface RequestRecord {
  requestId: string;
  at: number;
  accountId: string | null;
  apiKeyId: string | null;
  method: string;
  route: string;
  model: string | null;
  replica: string | null;
  status: number;
  error: string | null;
  latencyMs: number;
  ttfbMs: number | null;
  stream: string | null;
  stages: StageDurations | null;
  upstreamMs: number | null;
  cache: string | null;
  guardrails: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  costMicros: number | null;
  currency: string | null;
  clientIp: string | null;
  userAgent: string | null;
}
