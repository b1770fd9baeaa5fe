/** Histogram bounds of the event-loop delay, in seconds: from a healthy loop (< 1 ms) to a stall. */
export const EVENT_LOOP_DELAY_BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2];

/**
 * Samples the event loop's delay by timer drift: a timer every `intervalMs` (unref'd, so it
 * never keeps the process alive) records how late it fired. A loop blocked for several
 * intervals also records the ticks it swallowed (delay - interval, delay - 2 intervals, ...,
 * HdrHistogram's "expected interval" correction): the distribution is then what a request
 * arriving at a random moment waits, not one sample per stall. Returns the stop function.
 */
export function sampleEventLoopDelay(record: (seconds: number) => void, intervalMs = 20): () => void {
  let last = performance.now();
  const timer = setInterval(function eventLoopTick() {
    const now = performance.now();
    const late = Math.max(0, now - last - intervalMs);
    last = now;
    record(late / 1000);
    for (let missed = late - intervalMs; missed > 0; missed -= intervalMs) record(missed / 1000);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
