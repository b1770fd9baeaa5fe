/** A W3C trace context's parent as a `traceparent` header carries it. */
export interface ParentContext {
  traceId: string;
  spanId: string;
  sampled: boolean;
}

// version-traceid-parentid-flags; a later version may append fields after a dash (W3C Trace Context, "Versioning").
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-|$)/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** The parent a `traceparent` header names, or null when it is absent or invalid (the trace then starts here). */
export function parseTraceparent(header: string | null): ParentContext | null {
  if (!header) return null;
  const m = TRACEPARENT.exec(header.trim());
  if (!m) return null;
  const [, version, traceId, spanId, flags, rest] = m as unknown as [string, string, string, string, string, string];
  if (version === 'ff' || (version === '00' && rest !== '') || traceId === ZERO_TRACE || spanId === ZERO_SPAN) return null;
  return { traceId, spanId, sampled: (parseInt(flags, 16) & 1) === 1 };
}

/** The `traceparent` header of span `spanId` of trace `traceId`. */
export function formatTraceparent(traceId: string, spanId: string, sampled: boolean): string {
  return `00-${traceId}-${spanId}-${sampled ? '01' : '00'}`;
}
