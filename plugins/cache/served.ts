import type { ChatCompletion } from '@svc/plugin-sdk';
import { decodeEntry, type CacheEntry } from './entry';

/** A stored entry ready to serve: the entry and the completion a hit hands the pipeline (usage marked `cached`), frozen. */
export interface ServedEntry {
  entry: CacheEntry;
  completion: ChatCompletion;
  /** The original answer's tokens (prompt + completion), what the token rate limits count for a hit. */
  tokens: number;
}

/** An entry as hits serve it: one frozen completion shared by every hit of it (the pipeline never writes to it). */
export function servedEntry(entry: CacheEntry): ServedEntry {
  const { completion } = entry;
  const usage = completion.usage ? Object.freeze({ ...completion.usage, cached: true }) : undefined;
  const tokens = (usage?.prompt_tokens ?? 0) + (usage?.completion_tokens ?? 0);
  return { entry, completion: Object.freeze({ ...completion, ...(usage && { usage }) }) as ChatCompletion, tokens };
}

// A store that hands back the same bytes object for the same entry (the memory store) gets it
// decoded once: the JSON parse, the usage mark and, in the pipeline, the stream's encoding are
// done on the first hit only.
const decoded = new WeakMap<Uint8Array, ServedEntry | null>();

// Bytes read from Redis are new on every read: the last decoded entries of small keys are kept
// by key and reused while the stored bytes are the same (a memcmp, where a parse and, for a
// stream, the SSE encoding were paid per hit). Bounded: RECENT entries of at most RECENT_BYTES.
const RECENT = 256;
const RECENT_BYTES = 64 * 1024;
const recent = new Map<string, { bytes: Uint8Array; served: ServedEntry }>();

function decodeOnce(bytes: Uint8Array, maxBytes: number): ServedEntry | null {
  let served = decoded.get(bytes);
  if (served === undefined) {
    const entry = decodeEntry(bytes, maxBytes);
    served = entry && servedEntry(entry);
    decoded.set(bytes, served);
  }
  return served;
}

/** The entry of `bytes` (stored under `hash`) ready to serve; null when they do not decode (see decodeEntry). */
export function decodeServed(hash: string, bytes: Uint8Array, maxBytes: number): ServedEntry | null {
  if (bytes.byteLength > RECENT_BYTES) return decodeOnce(bytes, maxBytes);
  const known = recent.get(hash);
  if (known && Buffer.from(known.bytes.buffer, known.bytes.byteOffset, known.bytes.byteLength).equals(bytes)) return known.served;
  const served = decodeOnce(bytes, maxBytes);
  if (served) {
    recent.delete(hash);
    if (recent.size >= RECENT) recent.delete(recent.keys().next().value!);
    recent.set(hash, { bytes, served });
  }
  return served;
}
