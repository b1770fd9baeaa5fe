/**
 * The path of the first string (or member name) in a parsed value for which `bad` holds, or
 * null. The path is built on the way back from a hit only: a wide body (100,000 objects) is
 * walked without an allocation per element (a path copy per step cost 10 to 25 ms of CPU there).
 * A member name that is bad is given as `shown(name)`, so the path can be printed.
 */
export function findString(
  value: unknown,
  path: (string | number)[],
  bad: (text: string) => boolean,
  shown: (name: string) => string,
  maxDepth = 32,
): (string | number)[] | null {
  const hit = below(value, 0, { bad, shown, maxDepth });
  return hit === null ? null : [...path, ...hit.reverse()];
}

interface Walk {
  bad: (text: string) => boolean;
  shown: (name: string) => string;
  maxDepth: number;
}

/** The path below `value` to its first bad string, innermost step first; null when there is none. */
function below(value: unknown, depth: number, o: Walk): (string | number)[] | null {
  if (typeof value === 'string') return o.bad(value) ? [] : null;
  if (value === null || typeof value !== 'object' || depth > o.maxDepth) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = value[i];
      if (item === null || (typeof item !== 'object' && typeof item !== 'string')) continue;
      const hit = below(item, depth + 1, o);
      if (hit) return (hit.push(i), hit);
    }
    return null;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (o.bad(key)) return [o.shown(key)];
    const hit = below((value as Record<string, unknown>)[key], depth + 1, o);
    if (hit) return (hit.push(key), hit);
  }
  return null;
}
