/** One byte range, inclusive. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * The single byte range of a `Range` header over `size` bytes (RFC 9110 14.1.2): `start-end`,
 * `start-` or `-suffix`. Null for no header, another unit or several ranges (the whole
 * file is served); 'unsatisfiable' for a range past the end (416).
 */
export function rangeOf(header: string | null, size: number): ByteRange | 'unsatisfiable' | null {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match) return null;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (start >= size) return 'unsatisfiable';
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (end < start) return null;
  return { start, end };
}
