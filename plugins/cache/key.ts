import { createHash } from 'node:crypto';

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

/** JSON with object keys sorted at every depth and no whitespace: one text per meaning. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + (value[i] === undefined ? 'null' : canonicalJson(value[i]));
    return out + ']';
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length > 1) keys.sort();
  let out = '{';
  for (const key of keys) {
    const v = record[key];
    // As JSON.stringify does: an undefined field is absent, so `{a: undefined}` keys as `{}`.
    if (v !== undefined) out += (out.length === 1 ? '' : ',') + JSON.stringify(key) + ':' + canonicalJson(v);
  }
  return out + '}';
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
  return createHash('sha256').update(text).digest('hex');
}
