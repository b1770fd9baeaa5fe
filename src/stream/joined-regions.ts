// One buffer for every stream: a join is read synchronously and dropped before the next.
let scratch = new Uint8Array(16 * 1024);

/**
 * `regions` (`bytes` long in all) as one contiguous view, for a search or a scan that costs a
 * call per region otherwise (a byte search's call outweighs its work on a ~180-byte event). The
 * view is of a buffer shared by every stream: valid only until the next join.
 */
export function joinedRegions(regions: readonly Uint8Array[], bytes: number): Uint8Array {
  if (regions.length === 1) return regions[0]!;
  if (bytes > scratch.length) scratch = new Uint8Array(Math.max(bytes, scratch.length * 2));
  let at = 0;
  for (const r of regions) {
    scratch.set(r, at);
    at += r.length;
  }
  return scratch.subarray(0, at);
}
