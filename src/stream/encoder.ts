import type { ChatChunk } from './wire';

/** The one UTF-8 encoder of the stream code. */
export const utf8 = new TextEncoder();

const DONE_TEXT = 'data: [DONE]\n\n';

/** The terminating event of every chat stream. */
export const DONE_BYTES = utf8.encode(DONE_TEXT);

/** A keep-alive comment; SSE clients ignore it, proxies see traffic. */
export const PING_BYTES = utf8.encode(': ping\n\n');

/** Encodes one JSON payload as an SSE `data:` event. The only place svc writes `data: `. */
export function encodeEvent(payload: ChatChunk | Record<string, unknown>): Uint8Array {
  return utf8.encode(eventText(payload));
}

/** One JSON payload as the text of an SSE `data:` event (to gather several before encoding). */
export function eventText(payload: ChatChunk | Record<string, unknown>): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

/**
 * One JSON payload as a named SSE event (`event:` then `data:`), as typed event streams (the
 * Responses API) send them. The name is svc's own constant; CR or LF in it would forge events.
 */
export function namedEventText(name: string, payload: Record<string, unknown>): string {
  if (/[\r\n]/.test(name)) throw new Error(`SSE event name must not contain CR or LF: ${JSON.stringify(name)}`);
  return `event: ${name}\n${eventText(payload)}`;
}

/**
 * The in-band error event of a chat stream that fails after its headers went out
 * (API-NOTES section 1): OpenAI's error object, followed by `[DONE]`.
 */
function streamErrorText(message: string, code = 'upstream_error'): string {
  return eventText({ error: { message, type: 'server_error', code, param: null } });
}

/**
 * How a decoded chat stream is written to the client: the chat-completions chunks themselves
 * (`chatEncoder`), or another wire format built from them (the Responses API's typed events).
 * The proxy decodes the upstream once and hands every chunk that reaches the client to
 * `chunk`; what the methods return is written as it is.
 */
export interface StreamEncoder {
  /** Events sent before anything else (the Responses API's `response.created`). */
  start(): string;
  /** The events for one chunk that reaches the client (leading chunks included). */
  chunk(chunk: ChatChunk): string;
  /** The end of a stream that completed; `last` is the usage chunk with `cost` from metering, or null. */
  end(last: ChatChunk | null): string;
  /** The end of a stream that failed after its headers went out. */
  error(message: string): string;
}

/** The chat-completions encoder: chunks as they are, the usage chunk, then `[DONE]`. */
export const chatEncoder: StreamEncoder = {
  start: () => '',
  chunk: eventText,
  end: (last) => (last ? eventText(last) : '') + DONE_TEXT,
  error: (message) => streamErrorText(message) + DONE_TEXT,
};
