/** A classifier's answer. */
export interface Verdict {
  verdict: 'deny' | 'flag' | 'pass';
  reason: string | null;
}

/**
 * Reads a classifier's JSON answer: `{ "verdict": "deny" | "flag" | "pass", "reason"? }`, or
 * an OpenAI-style moderation result (`{ "results": [{ "flagged": true, "categories": {...} }] }`,
 * flagged = deny). Anything else is an error (then fail-open or fail-closed decides).
 */
export function parseVerdict(body: string): Verdict {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new Error('the classifier did not answer JSON');
  }
  const o = json as { verdict?: unknown; reason?: unknown; results?: { flagged?: unknown; categories?: Record<string, unknown> }[] };
  const reason = typeof o.reason === 'string' ? o.reason.slice(0, 200) : null;
  if (o.verdict === 'deny' || o.verdict === 'flag' || o.verdict === 'pass') return { verdict: o.verdict, reason };
  const first = Array.isArray(o.results) ? o.results[0] : undefined;
  if (first && typeof first.flagged === 'boolean') {
    const cats = Object.entries(first.categories ?? {})
      .filter(([, v]) => v === true)
      .map(([k]) => k);
    return { verdict: first.flagged ? 'deny' : 'pass', reason: cats.length ? cats.join(', ') : null };
  }
  throw new Error('the classifier answered no verdict');
}
