import { O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/esm/encodingParams/constants';
import { loadO200kBase, rankOf, type RankTable } from './rank-table';

let table: RankTable | null = null;
const o200k = () => (table ??= loadO200kBase());

/** Loads the rank table now (~50-200 ms): svc does it at start, so no request waits for it. */
export function loadTokenizer(): void {
  o200k();
}

const encoder = new TextEncoder();
let scratch = new Uint8Array(1024);
let bounds = new Int32Array(1025);
let pairRanks = new Int32Array(1025);
const NONE = 0x7fffffff;
const SPLIT = new RegExp(O200K_TOKEN_SPLIT_REGEX);

/** The UTF-8 bytes of `piece` in `scratch` (grown as needed); returns their length. */
function encodePiece(piece: string): number {
  const n = piece.length;
  if (n * 3 > scratch.length) scratch = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) {
    const c = piece.charCodeAt(i);
    if (c >= 0x80) return encoder.encodeInto(piece, scratch).written;
    scratch[i] = c;
  }
  return n;
}

/** Rank of merging the parts that start at bounds[i] and end at bounds[i + 2], or NONE. */
function mergedRank(t: RankTable, parts: number, i: number): number {
  if (i < 0 || i + 2 > parts) return NONE;
  const r = rankOf(t, scratch, bounds[i]!, bounds[i + 2]!);
  return r < 0 ? NONE : r;
}

/**
 * Tokens of one pre-tokenized piece of `len` bytes in `scratch`: 1 when the piece is a token,
 * else the parts left by byte-pair merging (the lowest-ranked adjacent pair first, leftmost on
 * a tie: tiktoken's algorithm, so the count equals its encoding's length).
 */
function pieceTokens(t: RankTable, len: number): number {
  if (len === 0) return 0;
  if (rankOf(t, scratch, 0, len) >= 0) return 1;
  if (len + 1 > bounds.length) ((bounds = new Int32Array(len + 1)), (pairRanks = new Int32Array(len + 1)));
  let parts = len;
  for (let i = 0; i <= len; i++) bounds[i] = i;
  for (let i = 0; i < parts - 1; i++) pairRanks[i] = mergedRank(t, parts, i);
  while (parts > 1) {
    let best = NONE;
    let at = -1;
    for (let i = 0; i < parts - 1; i++)
      if (pairRanks[i]! < best) {
        best = pairRanks[i]!;
        at = i;
      }
    if (at < 0) break;
    // Parts `at` and `at + 1` become one: drop the boundary between them.
    bounds.copyWithin(at + 1, at + 2, parts + 1);
    pairRanks.copyWithin(at + 1, at + 2, parts);
    parts--;
    pairRanks[at] = mergedRank(t, parts, at);
    if (at > 0) pairRanks[at - 1] = mergedRank(t, parts, at - 1);
  }
  return parts;
}

/**
 * o200k_base tokens of `text`, exactly as gpt-tokenizer (and tiktoken) count them. A client's
 * text that spells a special token (`<|endoftext|>`) is counted as the text it is, as an
 * upstream's API treats it (gpt-tokenizer's countTokens throws on it by default, which once
 * made such a prompt a 500).
 */
export function countO200k(text: string): number {
  const t = o200k();
  // One shared global regex, restarted per count: a count runs to its end synchronously.
  const split = SPLIT;
  split.lastIndex = 0;
  let n = 0;
  for (let m = split.exec(text); m !== null; m = split.exec(text)) n += pieceTokens(t, encodePiece(m[0]));
  return n;
}
