import { useEffect, useState } from 'preact/hooks';
import { call, messageOf } from '../api';
import { Alert, DataTable, FilterInput, PageHeading } from '../parts';
import { duration, num } from '../format';

/** A model as GET /models?type=all lists it. */
interface Model {
  id: string;
  type: string;
  context_length?: number;
  model_spec: {
    name?: string;
    pricing?: Record<string, unknown>;
    deprecation?: { date: string; replacementModelId?: string };
    constraints?: Record<string, unknown>;
  };
}
/** GET /console/api/replicas. */
interface Replicas {
  windowSeconds: number;
  models: Record<string, { provider: string; upstreamModel: string; weight: number; inFlight: number }[]>;
  providers: Record<string, { health: 'idle' | 'ok' | 'degraded' | 'failing'; errors: Record<string, number>; p50Ms: number | null }>;
}

/** GET /api_keys/rate_limits: the limits in force for this account's tier. */
interface RateLimits {
  data: { apiTier: { id: string }; rateLimits: { apiModelId: string; rateLimits: { amount: number; type: string }[] }[] };
}

/** Each model's limits as short text: "500 RPM · 1,000,000 TPM". */
function limitsText(r: RateLimits): Record<string, string> {
  return Object.fromEntries(
    r.data.rateLimits.map((m) => [m.apiModelId, m.rateLimits.map((l) => `${num(l.amount, 0)} ${l.type}`).join(' · ') || 'none']),
  );
}

/** The model's prices as short text: "input $0.5/M · output $1.5/M". */
function prices(pricing: Record<string, unknown> | undefined): string {
  if (!pricing) return '–';
  const parts: string[] = [];
  const walk = (prefix: string, v: unknown) => {
    // Token prices are per million tokens (the reference's unit); others per their unit (image, second...).
    const per = /input|output/.test(prefix) ? '/M' : '';
    if (v && typeof v === 'object' && 'usd' in v) parts.push(`${prefix} $${(v as { usd: number }).usd}${per}`);
    else if (v && typeof v === 'object') for (const [k, inner] of Object.entries(v)) walk(prefix ? `${prefix} ${k}` : k, inner);
  };
  walk('', pricing);
  return parts.slice(0, 4).join(' · ') + (parts.length > 4 ? ' …' : '');
}

/** The models page: catalog with prices, limits and deprecation, and the replicas serving each with their health. */
export function ModelsPage() {
  const [models, setModels] = useState<Model[] | null>(null);
  const [replicas, setReplicas] = useState<Replicas | null>(null);
  const [limits, setLimits] = useState<Record<string, string>>({});
  const [filter, setFilter] = useState('');
  const [error, setError] = useState('');

  useEffect(() => {
    Promise.all([
      call<{ data: Model[] }>('/models?type=all').then((r) => setModels(r.data)),
      call<{ data: Replicas }>('/console/api/replicas').then((r) => setReplicas(r.data)),
      call<RateLimits>('/api_keys/rate_limits').then((r) => setLimits(limitsText(r))),
    ]).catch((e) => setError(messageOf(e)));
  }, []);

  const shown = (models ?? []).filter((m) => !filter || `${m.id} ${m.type}`.toLowerCase().includes(filter.toLowerCase()));
  return (
    <section aria-labelledby="models-title">
      <PageHeading id="models-title">Models</PageHeading>
      <Alert message={error} />
      <div class="toolbar">
        <FilterInput value={filter} onChange={setFilter} placeholder="id or type" />
        {replicas && (
          <p class="muted">Replica health from this instance's upstream calls over the last {duration(replicas.windowSeconds)}.</p>
        )}
      </div>
      <DataTable caption="Model catalog" headers={['Model', 'Type', 'Prices (USD)', 'Context', 'Rate limits', 'Deprecation', 'Replicas']}>
        {shown.map((m) => (
          <tr key={m.id}>
            <td>
              <span class="mono">{m.id}</span>
              {m.model_spec.name && m.model_spec.name !== m.id && <div class="muted small">{m.model_spec.name}</div>}
            </td>
            <td>{m.type}</td>
            <td class="small">{prices(m.model_spec.pricing)}</td>
            <td>{m.context_length ? num(m.context_length, 0) : '–'}</td>
            <td class="small">{limits[m.id] ?? '–'}</td>
            <td>
              {m.model_spec.deprecation ? (
                <span class="badge warn">
                  {m.model_spec.deprecation.date}
                  {m.model_spec.deprecation.replacementModelId ? ` → ${m.model_spec.deprecation.replacementModelId}` : ''}
                </span>
              ) : (
                '–'
              )}
            </td>
            <td>
              <ul class="replicas">
                {(replicas?.models[m.id] ?? []).map((r) => {
                  const health = replicas?.providers[r.provider]?.health ?? 'idle';
                  return (
                    <li key={r.provider}>
                      <span class={`dot ${health}`} aria-hidden="true" />
                      <span class="mono">{r.provider}</span> <span class="muted small">{health}</span>
                      {r.inFlight > 0 && <span class="small"> · {r.inFlight} in flight</span>}
                    </li>
                  );
                })}
              </ul>
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
