import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { ChatCompletion } from '@svc/plugin-sdk';

/** The entry layout's version (first byte): an entry of another version is a miss, never misread. */
export const ENTRY_VERSION = 1;
const RAW = 0;
const DEFLATED = 1;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A stored answer: the completion as the upstream gave it, what it cost and when it was stored. */
export interface CacheEntry {
  completion: ChatCompletion;
  /** Epoch ms when it was stored (the `Age` of a hit). */
  storedAt: number;
  /** What the original answer cost in micro-USD (a fractional cache price is a share of it). */
  costMicros: number;
}

/**
 * The entry's bytes: a version byte, a flags byte (deflated or not), then the JSON; deflated
 * when the JSON is larger than `compressAbove` bytes. Null when the JSON is over `maxBytes`.
 */
export function encodeEntry(entry: CacheEntry, compressAbove: number, maxBytes: number): Uint8Array | null {
  const json = encoder.encode(JSON.stringify(entry));
  if (json.byteLength > maxBytes) return null;
  const deflate = json.byteLength > compressAbove;
  const body = deflate ? deflateRawSync(json) : json;
  const out = new Uint8Array(2 + body.byteLength);
  out[0] = ENTRY_VERSION;
  out[1] = deflate ? DEFLATED : RAW;
  out.set(body, 2);
  return out;
}

/**
 * Reads an entry; null for another version or bytes that do not decode (a miss, the entry is
 * then overwritten). Inflation stops at `maxBytes`, so a corrupt entry cannot balloon.
 */
export function decodeEntry(bytes: Uint8Array, maxBytes: number): CacheEntry | null {
  if (bytes.byteLength < 2 || bytes[0] !== ENTRY_VERSION) return null;
  try {
    const body = bytes.subarray(2);
    const json = bytes[1] === DEFLATED ? inflateRawSync(body, { maxOutputLength: maxBytes }) : body;
    const entry = JSON.parse(decoder.decode(json)) as CacheEntry;
    return entry && typeof entry.storedAt === 'number' && entry.completion?.object === 'chat.completion' ? entry : null;
  } catch {
    return null;
  }
}
