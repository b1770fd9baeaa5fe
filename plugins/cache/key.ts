/**
 * Request fields that never change the answer: the transport (`stream`, `stream_options`),
 * the caller's labels (`user`, `metadata`, `safety_identifier`), storage and routing hints
 * (`store`, `prompt_cache_key`). Everything else is in the key, so a field svc does not
 * know yet makes a different entry rather than a wrong hit.
 */
export const IGNORED_FIELDS: readonly string[] = [
  'stream',
  'stream_options',
  'user',
  'metadata',
  'store',
  'prompt_cache_key',
  'safety_identifier',
  'svc_parameters',
];

/**
 * A deep copy of a JSON value with every object's keys inserted in sorted order, so one
 * native `JSON.stringify` of it is one text per meaning (a hand-written serializer that
 * sorted and quoted each leaf cost six times as much).
 */
function sortedCopy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = sortedCopy(value[i]);
    return out;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length > 1) keys.sort();
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    // A parsed body may carry an own `__proto__` field: defined, not assigned (which would set the prototype).
    if (key === '__proto__') Object.defineProperty(out, key, { value: sortedCopy(record[key]), enumerable: true, writable: true });
    else out[key] = sortedCopy(record[key]);
  }
  return out;
}

/**
 * JSON with object keys sorted at every depth and no whitespace: one text per meaning (as
 * JSON.stringify: an undefined field is absent, so `{a: undefined}` is `{}`).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortedCopy(value)) ?? 'null';
}

/** The request's fields that change the answer (a shallow copy without the ignored ones). */
export function keyedFields(req: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(req)) if (!IGNORED_FIELDS.includes(key)) out[key] = req[key];
  return out;
}

/**
 * The entry's hash: SHA-256 (hex) of the scope, the catalog model and the canonical request.
 * The scope is part of the hashed text, so two accounts' identical requests never share a key.
 */
export function cacheKey(scope: string, model: string, req: Readonly<Record<string, unknown>>): string {
  const text = canonicalJson({ v: 1, scope, model, request: keyedFields(req) });
  return Bun.SHA256.hash(text, 'hex');
}
