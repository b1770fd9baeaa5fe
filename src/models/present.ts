import { microsToNumber } from '../billing/money';
import { isImageModel, presentImageConstraints, presentImagePricing } from '../images/model';
import type { ModelEntry } from './catalog';

const usdDiem = (micros: number) => ({ usd: microsToNumber(micros), diem: microsToNumber(micros) });

function pricing(m: ModelEntry): Record<string, unknown> {
  const p = m.prices;
  if (m.type === 'text')
    return {
      input: usdDiem(p.inputPerMillion),
      output: usdDiem(p.outputPerMillion),
      ...(m.config.pricing.cacheInput !== undefined ? { cache_input: usdDiem(p.cacheInputPerMillion) } : {}),
    };
  if (m.type === 'embedding') return { input: usdDiem(p.inputPerMillion) };
  if (isImageModel(m)) return presentImagePricing(m);
  return { generation: usdDiem(p.perUnit) };
}

/** The ModelResponse record of GET /models (reference API-NOTES section 2). */
export function presentModel(m: ModelEntry, createdAt: number) {
  const c = m.config;
  const spec: Record<string, unknown> = {
    name: m.name,
    description: c.description ?? (m.simulated ? 'Served by the built-in simulator: canned text, no model weights.' : undefined),
    privacy: c.privacy,
    offline: false,
    beta: false,
    traits: c.traits,
    modelSource: m.simulated ? 'svc-simulator' : c.routes.map((r) => r.provider).join(','),
    pricing: pricing(m),
  };
  if (m.simulated) spec.simulator = true;
  if (m.type === 'text') {
    spec.availableContextTokens = c.contextLength ?? 32768;
    if (c.maxCompletionTokens) spec.maxCompletionTokens = c.maxCompletionTokens;
    spec.capabilities = { quantization: 'not-available', ...c.capabilities };
    spec.constraints = c.constraints ?? { temperature: { default: 0.7 }, top_p: { default: 0.9 } };
  } else if (isImageModel(m)) spec.constraints = { ...presentImageConstraints(m), ...c.constraints };
  else if (c.constraints) spec.constraints = c.constraints;
  if (c.promptCharacterLimit) spec.constraints = { ...(spec.constraints as object), promptCharacterLimit: c.promptCharacterLimit };
  if (c.deprecation)
    spec.deprecation = {
      autoRemap: false,
      date: c.deprecation.date,
      removesAt: c.deprecation.date,
      ...(c.deprecation.replacementModelId ? { replacementModelId: c.deprecation.replacementModelId } : {}),
    };
  return {
    id: m.id,
    object: 'model' as const,
    owned_by: 'svc',
    type: m.type,
    created: createdAt,
    ...(m.type === 'text' ? { context_length: c.contextLength ?? 32768 } : {}),
    model_spec: spec,
  };
}

/** Deprecation headers (spec 9) for a model scheduled for deprecation; empty otherwise. */
export function deprecationHeaders(m: ModelEntry): Record<string, string> {
  const d = m.config.deprecation;
  if (!d) return {};
  return {
    'x-svc-model-deprecation-warning': d.message ?? `The model ${m.id} is deprecated and will be removed on ${d.date}.`,
    'x-svc-model-deprecation-date': d.date,
  };
}
