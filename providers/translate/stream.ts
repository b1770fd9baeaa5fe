import { chatEncoder, DONE_BYTES, eventText, utf8 } from '../../src/stream/encoder';
import { SseDecoder, type SseEvent } from '../../src/stream/events';
import { readerStream, type ByteReader } from '../../src/stream/prefetched';
import { onlyOpens } from '../../src/stream/opening';
import type { ChatChunk } from '../../src/stream/wire';
import { UpstreamFailure, upstreamAtCapacity, upstreamUnavailable } from '../errors';

/** A failure an upstream reported inside its stream (or a broken event); `atCapacity` for an overloaded upstream. */
export class StreamEventError extends Error {
  override name = 'StreamEventError';
  constructor(
    message: string,
    readonly atCapacity = false,
    /** Thrown as it is when it comes before the first chunk (a content refusal, say). */
    readonly beforeFirstChunk?: UpstreamFailure,
  ) {
    super(message);
  }
}

/** A stream event's data as a JSON object; a StreamEventError when the upstream sent anything else. */
export function eventObject(data: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    throw new StreamEventError('The upstream sent a malformed stream event');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new StreamEventError('The upstream sent a malformed stream event');
  return parsed as Record<string, unknown>;
}

/**
 * Turns one provider's stream events into chat-completions chunks, its state in a closure
 * or fields: `event` emits the chunks of one upstream event (throwing StreamEventError for
 * an in-band failure), `end` those still owed when the upstream closed, and says whether
 * the answer was complete (then `[DONE]` follows; otherwise the stream counts as broken).
 */
export interface StreamTranslator {
  event(e: SseEvent, emit: (chunk: ChatChunk) => void): void;
  end(emit: (chunk: ChatChunk) => void): boolean;
}

/** The error a failure before any chunk reached the client becomes: retried on another replica when it can be. */
function beforeFirstByte(error: unknown): unknown {
  if (!(error instanceof StreamEventError)) return error;
  if (error.beforeFirstChunk) return error.beforeFirstChunk;
  return error.atCapacity ? upstreamAtCapacity() : upstreamUnavailable(error.message);
}

/**
 * A provider's SSE answer as a chat-completions SSE stream, translated one upstream read at
 * a time (never the whole answer in memory): bytes -> events (src/stream) -> chunks -> one
 * encoded region per read. The regions up to the first that says something (content, a
 * finish) are read before this resolves, so a failure before it (a refused request, an
 * overloaded error event, an empty body) is still an UpstreamFailure the router can retry;
 * after it, failures are in-band errors.
 */
export async function translatedStream(
  res: Response,
  translator: StreamTranslator,
  abort: AbortController,
  end: () => void,
): Promise<ReadableStream<Uint8Array>> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new SseDecoder();
  let text = '';
  // Set by the first chunk that says something (content, reasoning, a tool call, a finish):
  // until then the regions are held, and a failure is still an UpstreamFailure.
  let spoke = false;
  const emit = (chunk: ChatChunk) => {
    text += eventText(chunk);
    if (!spoke && !onlyOpens(chunk)) spoke = true;
  };
  let finished = false;
  let sent = false;

  /** The next non-empty region, or null at the end. */
  async function next(): Promise<Uint8Array | null> {
    while (!finished) {
      const r = await reader.read();
      text = '';
      try {
        const events = r.done ? decoder.end() : decoder.push(r.value);
        for (const e of events) translator.event(e, emit);
        if (r.done) {
          finished = true;
          end();
          const complete = translator.end(emit);
          // Without its end event the stream is broken: no [DONE], so the proxy reports and bills it as such.
          if (complete) return concat(utf8.encode(text), DONE_BYTES);
        }
      } catch (error) {
        if (!sent) {
          reader.cancel().catch(() => {});
          throw beforeFirstByte(error);
        }
        finished = true;
        abort.abort();
        reader.cancel().catch(() => {});
        const message = error instanceof StreamEventError ? error.message : 'The upstream sent a broken stream';
        return utf8.encode(text + chatEncoder.error(message));
      }
      if (text.length > 0) {
        sent = spoke;
        return utf8.encode(text);
      }
    }
    return null;
  }

  // The opening (the role chunk of message_start, say) is held until the first chunk that
  // says something, so an error event before any content is an error status, not a 200.
  const opening: Uint8Array[] = [];
  for (let region = await next(); region; region = sent ? null : await next()) opening.push(region);
  if (opening.length === 0) throw upstreamUnavailable('the upstream closed the stream before sending anything');
  let pending: Uint8Array | null = concat(...opening);
  const direct: ByteReader = {
    async read() {
      const value = pending ?? (await next());
      pending = null;
      return value ? { done: false, value } : { done: true };
    },
    cancel() {
      finished = true;
      abort.abort();
      return reader.cancel().catch(() => {});
    },
  };
  return readerStream(direct);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const nonEmpty = parts.filter((p) => p.length > 0);
  if (nonEmpty.length === 1) return nonEmpty[0] as Uint8Array;
  const out = new Uint8Array(nonEmpty.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of nonEmpty) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
