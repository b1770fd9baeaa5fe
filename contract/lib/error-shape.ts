/** Whether an error body names `field` (dotted): in its `error` string, or under `details`. */
export function names(body: unknown, field: string): boolean {
  const b = body as { error?: unknown; details?: Record<string, unknown> };
  if (typeof b?.error === 'string' && b.error.includes(field.split('.').at(-1)!)) return true;
  let node: unknown = b?.details;
  for (const part of field.split('.')) node = (node as Record<string, unknown> | undefined)?.[part];
  return node !== undefined;
}

/** The spec 2.5 shapes: `{error}` or `{error, details}` with `_errors` arrays at every level of `details`; '' when it conforms. */
export function shapeProblem(body: unknown): string {
  const b = body as Record<string, unknown> | undefined;
  if (!b || typeof b.error !== 'string') return 'no error string';
  if (b.details === undefined) return '';
  const walk = (node: unknown, at: string): string => {
    if (!node || typeof node !== 'object') return `${at} is not an object`;
    const n = node as Record<string, unknown>;
    if (!Array.isArray(n._errors)) return `${at}._errors is not an array`;
    for (const [k, v] of Object.entries(n)) {
      const problem = k === '_errors' ? '' : walk(v, `${at}.${k}`);
      if (problem) return problem;
    }
    return '';
  };
  return walk(b.details, 'details');
}
