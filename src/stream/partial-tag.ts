/**
 * Length of the tail of `s` (from `from` on) that is a proper prefix of `tag`, i.e. a tag
 * that the next piece of a stream may complete, so it must be held back. Tags hold '<' only
 * at position 0, so the last '<' is the only candidate: one lastIndexOf and at most
 * tag.length compares.
 */
export function partialTagLength(s: string, from: number, tag: string): number {
  const n = s.length;
  const lt = s.lastIndexOf('<');
  if (lt < from || lt < n - (tag.length - 1)) return 0;
  for (let i = lt + 1, j = 1; i < n; i++, j++) if (s.charCodeAt(i) !== tag.charCodeAt(j)) return 0;
  return n - lt;
}
