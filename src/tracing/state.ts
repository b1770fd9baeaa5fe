/**
 * A traced request's ids, decided when it arrives (tracing on) so that the upstream is sent a
 * `traceparent` before any span exists: the spans are built after the answer with these ids.
 */
export interface TraceState {
  traceId: string;
  /** The server span's id. */
  spanId: string;
  /** The client's span (the server span's parent), or null when the trace starts here. */
  parentSpanId: string | null;
  /** The upstream call's span: the parent the upstream sees in its `traceparent`. */
  upstreamSpanId: string;
  upstreamTraceparent: string;
  /** The sampler's decision: unsampled requests are propagated but not exported. */
  sampled: boolean;
  /** The model the request named (its answer may come from a fallback). */
  requestModel: string | null;
}
