import type { MetricRow } from '../report';
import { FEATURES, type Feature, type FeaturesResult } from '../phases/features';
import type { RowData } from './rows';
import { row } from './rows';
import type { ThroughputResult } from '../phases/throughput';
import { ratio } from './stats';

/** The part of a run's data the feature rows read: the features phase per svc target, and the bare proxy's JSON request. */
export interface FeatureRowData extends RowData {
  /** svc targets (the embedded one): each feature's CPU per JSON request on and off (bench/phases/features.ts). */
  features: Record<string, FeaturesResult>;
  throughput: Record<string, ThroughputResult>;
}

const WORDS: Record<Feature, string> = {
  guardrail_pii: 'guardrail pii (redacts an e-mail, a card)',
  guardrail_deny_list: 'guardrail deny_list (3 words, 1 regex)',
  guardrail_limits: 'guardrail limits (all 4 set)',
  request_log: 'request log',
  tracing: 'tracing (all sampled, exported)',
};

/**
 * The new features' price (bench/phases/features.ts): per feature, svc's CPU per JSON request
 * (500 req/s) with it on and with it off, each against the bare proxy's JSON request of the
 * throughput phase, and on over off (1.0: the feature costs nothing measurable).
 */
export function featureRows(data: FeatureRowData): MetricRow[] {
  const bareJson = (t: string) => (t === 'bare' ? data.throughput[t]?.cpuPerRequest.cpuPerRequestUs : undefined);
  const cost = (t: string, f: Feature) => data.features[t]?.[f];
  return FEATURES.flatMap((f) => [
    row(data, `feature_cpu_${f}_on`, `JSON request CPU, ${WORDS[f]} on`, 'µs', (t) => (t === 'bare' ? bareJson(t) : cost(t, f)?.on)),
    row(data, `feature_cpu_${f}_off`, `JSON request CPU, ${WORDS[f]} off`, 'µs', (t) => (t === 'bare' ? bareJson(t) : cost(t, f)?.off)),
    row(data, `feature_cpu_${f}`, `JSON request CPU, ${WORDS[f]}: on over off`, 'x', (t) =>
      t === 'bare' ? null : ratio(cost(t, f)?.on, cost(t, f)?.off),
    ),
  ]);
}
