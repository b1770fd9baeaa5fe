/** A JSON value with `fn` applied to every string in it (object keys left alone). */
function mapStrings(value: unknown, fn: (s: string) => string): unknown {
  if (typeof value === 'string') return fn(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, fn));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = mapStrings(v, fn);
    return out;
  }
  return value;
}

/**
 * Tool-call arguments (a JSON text) with `fn` applied to each string value, so what it puts in
 * (a placeholder, a restored value with quotes or newlines) stays valid JSON; numbers and
 * keys are left as they are. Text that is not JSON gets `fn` as a whole. Unchanged text is
 * returned as it was (its spacing kept).
 */
export function mapArgumentStrings(args: string, fn: (s: string) => string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    return fn(args);
  }
  let changed = false;
  const mapped = mapStrings(parsed, (s) => {
    const out = fn(s);
    if (out !== s) changed = true;
    return out;
  });
  return changed ? JSON.stringify(mapped) : args;
}

/** `known` placeholders with their values escaped for the inside of a JSON string (a streamed argument's raw text). */
export function jsonEscaped(known: ReadonlyMap<string, string>): ReadonlyMap<string, string> {
  return new Map([...known].map(([placeholder, value]) => [placeholder, JSON.stringify(value).slice(1, -1)]));
}
