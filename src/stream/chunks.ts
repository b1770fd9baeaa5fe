import type { ChatChunk, ChatUsage } from './wire';
import type { SseEvent } from './events';

/** What an upstream SSE event means for the proxy. */
export type UpstreamEvent =
  | { kind: 'done' }
  /** A content chunk; `usage` is set when the upstream sent continuous usage stats on it. */
  | { kind: 'chunk'; chunk: ChatChunk; usage?: ChatUsage }
  /** The final usage chunk (`choices: []`); withheld so metering can add `cost` to it. */
  | { kind: 'usage'; chunk: ChatChunk; usage: ChatUsage }
  /**
   * An error in the stream. `status` is set when the upstream reported one (`data: {"error":
   * {...}}`), as the HTTP status it stands for (upstreamErrorStatus); a malformed event has none.
   */
  | { kind: 'error'; message: string; status?: number };

/** Thrown into a chunk stream when the upstream reports an error in-band or breaks. */
export class UpstreamStreamError extends Error {
  override name = 'UpstreamStreamError';
}

/**
 * A stream transform stopped the stream (a plugin's refusal or failure): the proxy lets the
 * upstream go, sends `finish` (a `content_filter` finish) when there is one, then the error.
 */
export class StreamStopped extends UpstreamStreamError {
  override name = 'StreamStopped';
  constructor(
    message: string,
    readonly finish: ChatChunk | null,
  ) {
    super(message);
  }
}

/** An error object as upstreams stream it: OpenAI's `{message, type, code}`, with a numeric code or status on some servers. */
interface ReportedError {
  message?: unknown;
  type?: unknown;
  code?: unknown;
  status?: unknown;
}

/** An HTTP error status from a number or a numeric string, else undefined. */
function httpStatus(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 400 && n < 600 ? n : undefined;
}

/**
 * The HTTP status an in-band error stands for: its numeric `status` or `code` (vLLM, SGLang
 * and OpenRouter send one), else its OpenAI `type` or `code` name (rate limit 429, invalid
 * request 400), else 500.
 */
export function upstreamErrorStatus(err: ReportedError | string | undefined): number {
  if (err === undefined || typeof err === 'string') return 500;
  const numeric = httpStatus(err.status) ?? httpStatus(err.code);
  if (numeric !== undefined) return numeric;
  const names = `${String(err.type ?? '')} ${String(err.code ?? '')}`;
  if (/rate_limit|overloaded|insufficient_quota/.test(names)) return 429;
  if (/invalid_request|context_length|bad_request/.test(names)) return 400;
  return 500;
}

/**
 * Events -> JSON, the top decoding layer. A usage object riding on a content chunk
 * (continuous usage stats) is lifted off it, so plugins only ever see content.
 */
export function classifyEvent(event: SseEvent): UpstreamEvent | null {
  const data = event.data;
  if (data === '[DONE]') return { kind: 'done' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return { kind: 'error', message: 'The upstream sent a malformed stream event' };
  }
  if (parsed === null || typeof parsed !== 'object') return null;
  const obj = parsed as Record<string, unknown>;
  if (obj.error !== undefined && obj.choices === undefined) {
    const err = obj.error as ReportedError | string;
    const message = typeof err === 'string' ? err : typeof err?.message === 'string' ? err.message : 'upstream error';
    return { kind: 'error', message, status: upstreamErrorStatus(err) };
  }
  const chunk = obj as ChatChunk;
  if (!Array.isArray(chunk.choices)) chunk.choices = [];
  const usage = chunk.usage;
  if (usage && typeof usage === 'object') {
    if (chunk.choices.length === 0) return { kind: 'usage', chunk, usage };
    delete chunk.usage;
    return { kind: 'chunk', chunk, usage };
  }
  return { kind: 'chunk', chunk };
}

/**
 * Whether a chunk carries produced output (content, reasoning, a tool call), as opposed to
 * the role-only opening chunk or the closing finish_reason chunk. A broken stream is
 * charged one completion token per such chunk forwarded (when the upstream sent no usage).
 */
export function carriesContent(chunk: ChatChunk): boolean {
  for (const choice of chunk.choices) {
    const d = choice.delta;
    if (d && (d.content || d.reasoning_content || (Array.isArray(d.tool_calls) && d.tool_calls.length > 0))) return true;
  }
  return false;
}
