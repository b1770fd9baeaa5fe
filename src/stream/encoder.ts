import type { ChatChunk } from './wire';

/** The one UTF-8 encoder of the stream code. */
export const utf8 = new TextEncoder();

/** The terminating event of every chat stream. */
export const DONE_BYTES = utf8.encode('data: [DONE]\n\n');

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
 * The in-band error event sent when a stream fails after its headers went out
 * (API-NOTES section 1): OpenAI's error object, followed by `[DONE]` from the caller.
 */
export function encodeStreamError(message: string, code = 'upstream_error'): Uint8Array {
  return encodeEvent({ error: { message, type: 'server_error', code, param: null } });
}
