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
// Sticky: every position of a text starts a piece (each character falls in one of the pattern's
// alternatives: letters, digits, whitespace, anything else), so the pieces are contiguous and
// `test` from the previous piece's end finds the next one without a match array or its string.
// `SPLIT` (a search) only covers a position where that would not hold.
const PIECE = new RegExp(O200K_TOKEN_SPLIT_REGEX.source, 'uy');
const SPLIT = new RegExp(O200K_TOKEN_SPLIT_REGEX);

/**
 * The UTF-8 bytes of `text` from `from` to `to` in `scratch` (grown as needed); returns their
 * length. ASCII is copied from the text in place; only a piece with other characters is sliced
 * out to be encoded.
 */
function encodePiece(text: string, from = 0, to = text.length): number {
  const n = to - from;
  if (n * 3 > scratch.length) scratch = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(from + i);
    if (c >= 0x80) return encoder.encodeInto(from === 0 && to === text.length ? text : text.slice(from, to), scratch).written;
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
 * Tokens of a short piece of `len` bytes in `scratch`, by tiktoken's own loop (the lowest-ranked
 * adjacent pair merged first, leftmost on a tie). Quadratic in `len`, and the fastest for the
 * short pieces of ordinary text.
 */
function shortPieceTokens(t: RankTable, len: number): number {
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

/** Pieces up to this many bytes take the short loop; longer ones the heap, whose cost grows as n log n. */
const SHORT_PIECE_BYTES = 256;

/**
 * Pieces longer than this many UTF-16 units are counted in slices of it. Ordinary text has no
 * such pieces (a word, a number of three digits, a run of punctuation): only a run of letters or
 * symbols with no space, where the count may then differ from the upstream's by a token or two
 * per slice, and where counting it whole would hold memory proportional to the run.
 */
const MAX_PIECE_UNITS = 16_384;
const MAX_PIECE_BYTES = MAX_PIECE_UNITS * 3;

// The long-piece state, sized once for the longest piece: next part's start, previous part's
// start, the rank of the pair a part starts (NONE when none), and the heap of queued pairs.
const nextPart = new Int32Array(MAX_PIECE_BYTES + 1);
const prevPart = new Int32Array(MAX_PIECE_BYTES + 1);
const pairRank = new Int32Array(MAX_PIECE_BYTES + 1);
// The token (rank) each part is: pairs are looked up by their two tokens in the cache below.
const partToken = new Int32Array(MAX_PIECE_BYTES + 1);
// Each merge queues at most two pairs: the initial pairs plus two per merge fit. An entry is
// rank * 2^16 + start (a piece's start fits in 16 bits): ordered by rank, then leftmost.
const heap = new Float64Array(MAX_PIECE_BYTES * 3 + 1);
const START_BITS = 65536;

// What two adjacent tokens merge into (a rank, or -1), direct-mapped by the pair: a long run
// repeats a few hundred pairs, and this answers most of them without hashing their bytes.
const PAIR_SLOTS = 1 << 16;
const pairLeft = new Int32Array(PAIR_SLOTS).fill(-1);
const pairRight = new Int32Array(PAIR_SLOTS);
const pairMerged = new Int32Array(PAIR_SLOTS);
let pairTable: RankTable | null = null;
let byteToken = new Int32Array(256);

/** The rank the tokens `left` and `right` (bytes `from .. to` of `scratch`) merge into, or -1. */
function mergeOf(t: RankTable, left: number, right: number, from: number, to: number): number {
  const slot = (Math.imul(left, 0x9e3779b1) ^ right) & (PAIR_SLOTS - 1);
  if (pairLeft[slot] === left && pairRight[slot] === right) return pairMerged[slot]!;
  const r = rankOf(t, scratch, from, to);
  pairLeft[slot] = left;
  pairRight[slot] = right;
  pairMerged[slot] = r;
  return r;
}

/** Resets the pair cache for `t` and fills the token of each single byte (every byte is one). */
function usePairTable(t: RankTable): void {
  if (pairTable === t) return;
  pairTable = t;
  pairLeft.fill(-1);
  const one = new Uint8Array(1);
  byteToken = new Int32Array(256);
  for (let b = 0; b < 256; b++) ((one[0] = b), (byteToken[b] = rankOf(t, one, 0, 1)));
}

/**
 * Tokens of a long piece of `len` bytes in `scratch`: the same merges in the same order as the
 * short loop, found with a min-heap of (rank, start) instead of a scan per merge, so the cost
 * grows as n log n. Parts are a linked list over their start bytes; a heap entry whose pair has
 * changed since is skipped when it comes up. Each part is a token, so a pair's rank costs at
 * most two tokens' bytes.
 */
function longPieceTokens(t: RankTable, len: number): number {
  usePairTable(t);
  let size = 0;
  for (let i = 0; i <= len; i++) ((nextPart[i] = i + 1), (prevPart[i] = i - 1), (partToken[i] = byteToken[scratch[i]!]!));
  for (let start = 0; start < len; start++) {
    const r = start + 2 <= len ? mergeOf(t, partToken[start]!, partToken[start + 1]!, start, start + 2) : -1;
    pairRank[start] = r < 0 ? NONE : r;
    if (r >= 0) size = heapPush(size, r * START_BITS + start);
  }
  let parts = len;
  while (size > 0) {
    const entry = heap[0]!;
    size = heapPop(size);
    const r = Math.floor(entry / START_BITS);
    const start = entry - r * START_BITS;
    // Stale: the part was merged into its left neighbour, or its pair changed since.
    if (pairRank[start] !== r) continue;
    const gone = nextPart[start]!;
    const after = nextPart[gone]!;
    nextPart[start] = after;
    if (after <= len) prevPart[after] = start;
    pairRank[gone] = NONE;
    partToken[start] = r;
    parts--;
    size = queuePair(t, len, start, size);
    if (start > 0) size = queuePair(t, len, prevPart[start]!, size);
  }
  return parts;
}

/** Records the rank of the pair that starts at part `start` and queues it when it is a token; returns the heap size. */
function queuePair(t: RankTable, len: number, start: number, size: number): number {
  const second = nextPart[start]!;
  const r = second < len ? mergeOf(t, partToken[start]!, partToken[second]!, start, nextPart[second]!) : -1;
  pairRank[start] = r < 0 ? NONE : r;
  return r < 0 ? size : heapPush(size, r * START_BITS + start);
}

/** Adds `entry` to the min-heap of `size` entries; returns the new size. */
function heapPush(size: number, entry: number): number {
  let i = size;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (heap[parent]! <= entry) break;
    heap[i] = heap[parent]!;
    i = parent;
  }
  heap[i] = entry;
  return size + 1;
}

/** Removes the smallest entry (heap[0]) from the min-heap of `size` entries; returns the new size. */
function heapPop(size: number): number {
  const last = heap[--size]!;
  let i = 0;
  for (;;) {
    let child = 2 * i + 1;
    if (child >= size) break;
    if (child + 1 < size && heap[child + 1]! < heap[child]!) child++;
    if (heap[child]! >= last) break;
    heap[i] = heap[child]!;
    i = child;
  }
  heap[i] = last;
  return size;
}

/**
 * Tokens of one pre-tokenized piece of `len` bytes in `scratch`: 1 when the piece is a token,
 * else the parts left by byte-pair merging (tiktoken's algorithm, so the count equals its
 * encoding's length).
 */
function pieceTokens(t: RankTable, len: number): number {
  if (len === 0) return 0;
  if (rankOf(t, scratch, 0, len) >= 0) return 1;
  return len <= SHORT_PIECE_BYTES ? shortPieceTokens(t, len) : longPieceTokens(t, len);
}

/** Tokens of one piece of any length (sliced past MAX_PIECE_UNITS). */
function anyPieceTokens(t: RankTable, piece: string): number {
  if (piece.length <= MAX_PIECE_UNITS) return pieceTokens(t, encodePiece(piece));
  return longRunTokens(t, piece);
}

/**
 * Tokens of a piece longer than MAX_PIECE_UNITS, in slices of it (never inside a surrogate
 * pair). A slice equal to the one before it (a run of one character) reuses its count.
 */
function longRunTokens(t: RankTable, piece: string): number {
  let n = 0;
  let previous = '';
  let previousTokens = 0;
  for (let from = 0; from < piece.length;) {
    let to = Math.min(piece.length, from + MAX_PIECE_UNITS);
    const last = piece.charCodeAt(to - 1);
    if (to < piece.length && last >= 0xd800 && last <= 0xdbff) to--;
    const slice = piece.slice(from, to);
    if (slice !== previous) ((previous = slice), (previousTokens = pieceTokens(t, encodePiece(slice))));
    n += previousTokens;
    from = to;
  }
  return n;
}

/**
 * o200k_base tokens of `text`, exactly as gpt-tokenizer (and tiktoken) count them (but for a
 * run of over 16,384 letters or symbols with no space, counted in slices), in time linear in
 * the text. A client's
 * text that spells a special token (`<|endoftext|>`) is counted as the text it is, as an
 * upstream's API treats it (gpt-tokenizer's countTokens throws on it by default, which once
 * made such a prompt a 500).
 */
export function countO200k(text: string): number {
  const t = o200k();
  // Shared regexes, restarted per count: a count runs to its end synchronously.
  const piece = PIECE;
  let n = 0;
  for (let from = 0; from < text.length;) {
    piece.lastIndex = from;
    const to = piece.test(text) ? piece.lastIndex : from;
    // No piece here, or an empty one (the pattern has none today; the loop must not spin on one).
    if (to === from) return n + searchedTokens(t, text, from);
    n += to - from <= MAX_PIECE_UNITS ? pieceTokens(t, encodePiece(text, from, to)) : longRunTokens(t, text.slice(from, to));
    from = to;
  }
  return n;
}

/** Tokens of `text` from `from` by searching for each piece (tiktoken's own loop). */
function searchedTokens(t: RankTable, text: string, from: number): number {
  const split = SPLIT;
  split.lastIndex = from;
  let n = 0;
  for (let m = split.exec(text); m !== null; m = split.exec(text)) n += anyPieceTokens(t, m[0]);
  return n;
}
