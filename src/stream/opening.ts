import { carriesContent, classifyEvent } from './chunks';
import { SseDecoder } from './events';
import type { ByteReader } from './prefetched';
import type { ChatChunk } from './wire';

/** Bytes of an upstream stream's opening held at most while waiting for its first content. */
export const MAX_OPENING_BYTES = 64 * 1024;

/** An error event an upstream sent before any content, with the HTTP status it stands for. */
export class InBandOpeningError extends Error {
  override name = 'InBandOpeningError';
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/**
 * Where the event starting at `from` ends in `bytes` (after its blank line, LF or CRLF), or
 * the length when no blank line follows. Any split is one the decoder handles (network reads
 * split anywhere); this one only keeps it from decoding events the opening does not need.
 */
function nextEventEnd(bytes: Uint8Array, from: number): number {
  for (let i = bytes.indexOf(10, from); i >= 0; i = bytes.indexOf(10, i + 1)) {
    const next = bytes[i + 1];
    if (next === 10) return i + 2;
    if (next === 13 && bytes[i + 2] === 10) return i + 3;
  }
  return bytes.length;
}

/** Whether a chunk only opens the stream: a role or an empty delta, no content and no finish. */
export function onlyOpens(chunk: ChatChunk): boolean {
  if (carriesContent(chunk)) return false;
  for (const choice of chunk.choices) if (choice.finish_reason) return false;
  return true;
}

/** Whether `bytes` up to `end` close an event with its blank line (LF LF, or LF CR LF). */
function endsEvent(bytes: Uint8Array, end: number): boolean {
  return end >= 2 && bytes[end - 1] === 10 && (bytes[end - 2] === 10 || (end >= 3 && bytes[end - 2] === 13 && bytes[end - 3] === 10));
}

// Whole events are decoded by one decoder for every stream: an event that ends with its blank
// line leaves it empty (no partial line, character or event). An event split across reads
// needs a stream's own decoder, which then decodes the rest of its opening.
const wholeEvents = new SseDecoder();

function joined(pieces: Uint8Array[], size: number): Uint8Array {
  if (pieces.length === 1) return pieces[0] as Uint8Array;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/**
 * Reads an upstream chat stream's opening, from `first`, until the event that says something:
 * content, a finish, usage or `[DONE]` (role-only chunks and comments are read past). An
 * error event before it throws InBandOpeningError: nothing has reached the client yet, so the
 * call fails as a non-streamed one would (its status, a retry on another replica, nothing
 * charged). Returns the bytes read, to be replayed unchanged; past MAX_OPENING_BYTES or at the
 * stream's end it stops holding. Only the opening is decoded: later chunks pass untouched.
 */
export async function readOpening(first: Uint8Array, reader: ByteReader, maxBytes = MAX_OPENING_BYTES): Promise<Uint8Array> {
  let decoder: SseDecoder | null = null;
  const held: Uint8Array[] = [];
  let size = 0;
  for (let piece = first; ;) {
    held.push(piece);
    size += piece.byteLength;
    // Decoded an event at a time: a piece holding the whole stream (a fast upstream) is not
    // decoded past the event that decides.
    for (let at = 0; at < piece.byteLength;) {
      const end = nextEventEnd(piece, at);
      const bytes = at === 0 && end === piece.byteLength ? piece : piece.subarray(at, end);
      if (!decoder && !endsEvent(piece, end)) decoder = new SseDecoder();
      for (const event of (decoder ?? wholeEvents).push(bytes)) {
        const meaning = classifyEvent(event);
        if (meaning === null) continue;
        // A malformed event (no status) is left to the proxy, as it was before any hold.
        if (meaning.kind === 'error' && meaning.status !== undefined) throw new InBandOpeningError(meaning.message, meaning.status);
        if (meaning.kind !== 'chunk' || !onlyOpens(meaning.chunk)) return joined(held, size);
      }
      at = end;
    }
    if (size >= maxBytes) return joined(held, size);
    const next = await reader.read();
    if (next.done) return joined(held, size);
    piece = next.value;
  }
}
