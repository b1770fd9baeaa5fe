/**
 * The boundaries of a request's stages, as `performance.now()` readings (0 or absent: not
 * reached). They are plain fields of the request context (all written as 0 where it is made,
 * so every context has one shape), set by the stage that ends or starts:
 * a reading costs one `performance.now()`, no object and no closure per stage. The request
 * log and the traces turn them into durations after the answer.
 */
export interface StageMarks {
  /** Stage 2: the authentication hook ran (start) and admitted a caller (end). */
  authStart?: number;
  authEnd?: number;
  /** The meter's admission: rate limits, balance and the reservation (`meter.open`). */
  admissionStart?: number;
  admissionEnd?: number;
  /** The request-side plugins (`transformRequest`, `respond`) of chat and responses. */
  pluginsStart?: number;
  pluginsEnd?: number;
  /** The first upstream attempt, and the upstream's answer in hand (a stream: its first content; JSON: the whole body). */
  upstreamStart?: number;
  upstreamFirstByte?: number;
  /** The meter's settlement (or release): the upstream's answer has ended by then. */
  settlementStart?: number;
  settlementEnd?: number;
}

/**
 * A request's stage durations in ms, as `GET /admin/requests/{id}` returns them and the
 * console draws them (in this order, one after the other from `at`); null for a stage the
 * request never reached.
 */
export interface StageDurations {
  auth_ms: number | null;
  admission_ms: number | null;
  plugins_ms: number | null;
  /** From the first upstream attempt to its answer in hand (a stream: its first content; JSON: the whole body). */
  upstream_ttfb_ms: number | null;
  /** From the first upstream attempt to the end of its answer (a stream: its last byte). */
  upstream_ms: number | null;
  settlement_ms: number | null;
}

/** `to - from` in ms with two decimals, or null when either end was not reached. */
function span(from = 0, to = 0): number | null {
  return from > 0 && to >= from ? Math.round((to - from) * 100) / 100 : null;
}

/** The durations of the stages a request went through (upstream_ms ends where the settlement starts). */
export function stageDurations(m: StageMarks): StageDurations {
  return {
    auth_ms: span(m.authStart, m.authEnd),
    admission_ms: span(m.admissionStart, m.admissionEnd),
    plugins_ms: span(m.pluginsStart, m.pluginsEnd),
    upstream_ttfb_ms: span(m.upstreamStart, m.upstreamFirstByte),
    upstream_ms: span(m.upstreamStart, m.settlementStart || m.upstreamFirstByte),
    settlement_ms: span(m.settlementStart, m.settlementEnd),
  };
}
