import { PII_CLASSES } from '../../plugins/guardrails/pii/detect';
import { Redactor } from '../../plugins/guardrails/pii/redact';
import type { ObservabilityConfig } from './config';

type BodiesConfig = ObservabilityConfig['requestLog']['bodies'];

/** Which requests get their bodies stored, and the cap of each body. */
export interface BodyPolicy {
  /** Whether a request of this account and key is captured. */
  wants(accountId: string | null | undefined, apiKeyId: string | null | undefined): boolean;
  maxBytes: number;
}

/** The capture policy of `observability.requestLog.bodies`, or null when nothing is listed (the default). */
export function bodyPolicyOf(config: BodiesConfig): BodyPolicy | null {
  if (config.accounts.length === 0 && config.keys.length === 0) return null;
  const accounts = new Set(config.accounts.map((id) => id.toLowerCase()));
  const keys = new Set(config.keys.map((id) => id.toLowerCase()));
  return {
    maxBytes: config.maxBytes,
    wants: (accountId, apiKeyId) => (!!accountId && accounts.has(accountId)) || (!!apiKeyId && keys.has(apiKeyId)),
  };
}

/** What a captured request hands the writer: its bodies as they were, turned into stored text at write time. */
export interface CapturedBodies {
  /** The parsed request body (undefined: none). */
  request: unknown;
  /** The JSON answer, or a stream's text (undefined: none). */
  response: unknown;
  /** A stream's text that is already cut (past what the proxy keeps). */
  responseCut?: boolean;
  maxBytes: number;
}

/** One row of `request_log_bodies`, ready to insert. */
export interface BodyRow {
  requestId: string;
  at: number;
  request: string | null;
  requestTruncated: boolean;
  response: string | null;
  responseTruncated: boolean;
}

const ALL_CLASSES = new Set(PII_CLASSES);
// Redaction runs on this many characters past the cap too, so a value the cut would split is
// still recognised whole and replaced (a split e-mail or card number would pass the detector).
const REDACT_MARGIN = 1024;
const TRUNCATED = '…[truncated]';

/** A file part of a multipart body, as text: its name, type and size, never its bytes. */
function withoutFiles(_key: string, value: unknown): unknown {
  if (value instanceof Blob) return `[file ${(value as File).name ?? ''} ${value.type} ${value.size} bytes]`;
  return value;
}

/** Text cut at `maxBytes` of UTF-8 (never inside a character), and whether it was cut. */
export function cutUtf8(text: string, maxBytes: number): { text: string; truncated: boolean } {
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text) <= maxBytes) return { text, truncated: false };
  const bytes = Buffer.from(text);
  // Back to the first byte of a character (continuation bytes are 10xxxxxx).
  let end = maxBytes;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return { text: bytes.subarray(0, end).toString() + TRUNCATED, truncated: true };
}

/**
 * A body as stored: serialised (text as it is), every PII class the pii guardrail knows
 * replaced by its placeholder (`[EMAIL_1]`), then cut at the cap. Null when there is none.
 */
export function storedBody(value: unknown, maxBytes: number): { text: string | null; truncated: boolean } {
  if (value === undefined || value === null) return { text: null, truncated: false };
  const raw = typeof value === 'string' ? value : (JSON.stringify(value, withoutFiles) ?? null);
  if (raw === null) return { text: null, truncated: false };
  const sliced = raw.length > maxBytes + REDACT_MARGIN ? raw.slice(0, maxBytes + REDACT_MARGIN) : raw;
  const cut = cutUtf8(new Redactor(ALL_CLASSES).redact(sliced), maxBytes);
  // Placeholders are shorter than most values: what was sliced off is marked even when the rest fits.
  if (!cut.truncated && sliced !== raw) return { text: cut.text + TRUNCATED, truncated: true };
  return cut;
}

/** The stored row of a captured request (done by the writer, off the response's path). */
export function bodyRow(requestId: string, at: number, bodies: CapturedBodies): BodyRow {
  const request = storedBody(bodies.request, bodies.maxBytes);
  const stored = storedBody(bodies.response, bodies.maxBytes);
  const response =
    bodies.responseCut && !stored.truncated && stored.text !== null ? { text: stored.text + TRUNCATED, truncated: true } : stored;
  return {
    requestId,
    at,
    request: request.text,
    requestTruncated: request.truncated,
    response: response.text,
    responseTruncated: response.truncated,
  };
}
