/** One line of GET /billing/usage, with the request, key and model svc adds to each. */
export interface Entry {
  timestamp: string;
  sku: string;
  pricePerUnitUsd: number;
  unit: number;
  amount: number;
  currency: string;
  notes: string;
  requestId: string;
  apiKeyId: string | null;
  modelId: string | null;
  inferenceDetails: { requestId: string; promptTokens: number | null; completionTokens: number | null } | null;
}

/** The lines of one request (a chat bills input and output tokens, and more with search or cache). */
export interface RequestGroup {
  /** The request id, and a suffix when the same request has another group (a refund later on). */
  key: string;
  first: Entry;
  lines: Entry[];
  /** The amounts summed per currency, exactly (in micro-units, then back). */
  totals: [currency: string, amount: number][];
}

/**
 * Groups ledger lines by request. The list is in time order and a request's lines share a
 * time and sit together, so consecutive lines of one request make a group; its last group on
 * a page is completed when the next page is appended. A refund of the request, written
 * later, is a group of its own.
 */
export function groupByRequest(entries: Entry[]): RequestGroup[] {
  const groups: RequestGroup[] = [];
  const seen = new Map<string, number>();
  let current: Entry[] | null = null;
  for (const e of entries) {
    const last: Entry | undefined = current?.[0];
    if (current && last && last.requestId === e.requestId && last.timestamp === e.timestamp) {
      current.push(e);
      continue;
    }
    current = [e];
    const n = seen.get(e.requestId) ?? 0;
    seen.set(e.requestId, n + 1);
    groups.push({ key: n ? `${e.requestId}#${n}` : e.requestId, first: e, lines: current, totals: [] });
  }
  for (const g of groups) {
    const micros = new Map<string, number>();
    for (const l of g.lines) micros.set(l.currency, (micros.get(l.currency) ?? 0) + Math.round(l.amount * 1e6));
    g.totals = [...micros].map(([c, m]) => [c, m / 1e6]);
  }
  return groups;
}
