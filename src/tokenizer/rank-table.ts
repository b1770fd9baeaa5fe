import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * A BPE rank table in three typed arrays: every token's bytes back to back (`bytes`, token `r`
 * at `bytes[starts[r]] .. bytes[starts[r + 1]]`), and an open-addressing hash index of them
 * (`slots`, rank + 1 per slot, 0 for empty). About 5 MB for o200k_base's 200,000 tokens, in
 * buffers the garbage collector never traverses: gpt-tokenizer's own table (200,000 strings
 * and a Map of them) cost svc ~42 MB of idle RSS and made every full collection mark it.
 */
export interface RankTable {
  bytes: Uint8Array;
  starts: Uint32Array;
  slots: Int32Array;
  mask: number;
  /** The longest token's length in bytes: a longer key is no token, without hashing it. */
  maxLength: number;
}

/** FNV-1a over `bytes[from .. to]`. */
export function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

/** The rank of `key[from .. to]`, or -1 when it is not a token. */
export function rankOf(t: RankTable, key: Uint8Array, from: number, to: number): number {
  const len = to - from;
  if (len > t.maxLength) return -1;
  for (let slot = hashBytes(key, from, to) & t.mask; ; slot = (slot + 1) & t.mask) {
    const entry = t.slots[slot]!;
    if (entry === 0) return -1;
    const rank = entry - 1;
    const start = t.starts[rank]!;
    if (t.starts[rank + 1]! - start !== len) continue;
    let i = 0;
    while (i < len && t.bytes[start + i] === key[from + i]) i++;
    if (i === len) return rank;
  }
}

const BASE64 = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) BASE64['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i;

/**
 * Parses a `.tiktoken` file (one `base64(token) rank` line per token, the format OpenAI's
 * tiktoken publishes) straight into a RankTable, decoding base64 by hand so that no string or
 * Buffer per token is ever made. Ranks missing from the file are empty tokens.
 */
export function parseTiktoken(file: Uint8Array): RankTable {
  let maxRank = -1;
  forEachLine(file, (_at, _len, rank) => (maxRank = Math.max(maxRank, rank)));
  const lengths = new Uint32Array(maxRank + 1);
  const sources = new Uint32Array(maxRank + 1);
  let bytesTotal = 0;
  forEachLine(file, (at, len, rank) => {
    lengths[rank] = len;
    sources[rank] = at;
    bytesTotal += len;
  });
  const bytes = new Uint8Array(bytesTotal);
  const starts = new Uint32Array(maxRank + 2);
  let out = 0;
  for (let r = 0; r <= maxRank; r++) {
    starts[r] = out;
    let bits = 0;
    let acc = 0;
    for (let i = sources[r]!, written = 0; written < lengths[r]!; i++) {
      acc = (acc << 6) | BASE64[file[i]!]!;
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        bytes[out++] = (acc >> bits) & 0xff;
        written++;
      }
    }
  }
  starts[maxRank + 1] = out;
  let maxLength = 0;
  for (let r = 0; r <= maxRank; r++) maxLength = Math.max(maxLength, starts[r + 1]! - starts[r]!);
  let size = 1;
  while (size < (maxRank + 1) * 2) size <<= 1;
  const slots = new Int32Array(size);
  const mask = size - 1;
  for (let r = 0; r <= maxRank; r++) {
    if (starts[r + 1] === starts[r]) continue;
    let slot = hashBytes(bytes, starts[r]!, starts[r + 1]!) & mask;
    while (slots[slot] !== 0) slot = (slot + 1) & mask;
    slots[slot] = r + 1;
  }
  return { bytes, starts, slots, mask, maxLength };
}

/** Calls `fn` with each line's base64 start, decoded length and rank (two passes, no allocation per line). */
function forEachLine(file: Uint8Array, fn: (at: number, len: number, rank: number) => void): void {
  for (let pos = 0; pos < file.length;) {
    let space = pos;
    while (space < file.length && file[space] !== 0x20) space++;
    let end = space + 1;
    let rank = 0;
    while (end < file.length && file[end] !== 0x0a) rank = rank * 10 + (file[end++]! - 0x30);
    if (space > pos && space < file.length) {
      let pad = 0;
      while (file[space - 1 - pad] === 0x3d) pad++;
      fn(pos, ((space - pos) * 3) / 4 - pad, rank);
    }
    pos = end + 1;
  }
}

/** o200k_base's ranks, from the `.tiktoken` file gpt-tokenizer ships. */
export function loadO200kBase(): RankTable {
  const path = createRequire(import.meta.url).resolve('gpt-tokenizer/data/o200k_base.tiktoken');
  return parseTiktoken(readFileSync(path));
}
