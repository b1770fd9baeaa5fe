/** Histogram bounds of the event-loop delay, in seconds: from a healthy loop (< 1 ms) to a stall. */
export const EVENT_LOOP_DELAY_BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2];

/** The sampler's rates and its reading of the process's CPU time (injected by the tests). */
export interface EventLoopSamplerOptions {
  /** The sampling interval while the process is busy: the histogram's resolution. */
  intervalMs?: number;
  /** The interval while it is quiet. */
  quietIntervalMs?: number;
  /** Below this share of one core over the last interval the process is quiet (the idle collector's 5 %). */
  quietCpuShare?: number;
  /** CPU time of the whole process so far, in microseconds. */
  cpuUs?: () => number;
}

const processCpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/**
 * What one tick records, in ms: its lateness, the ticks a blocked loop swallowed (delay -
 * interval, delay - 2 intervals, ..., HdrHistogram's "expected interval" correction), and, for a
 * tick that covered `covered` intervals of a quiet loop, a zero for each other interval, so the
 * histogram counts one sample per `intervalMs` of wall time whichever rate the timer ran at.
 */
export function delaySamples(lateMs: number, intervalMs: number, covered = 1): number[] {
  const samples = [lateMs];
  for (let missed = lateMs - intervalMs; missed > 0; missed -= intervalMs) samples.push(missed);
  for (let i = 1; i < covered; i++) samples.push(0);
  return samples;
}

/**
 * Samples the event loop's delay by timer drift: a timer (unref'd, so it never keeps the
 * process alive) records how late it fired, with the ticks a blocked loop swallowed, so the
 * distribution is what a request arriving at a random moment waits, not one sample per stall.
 *
 * The timer runs every `intervalMs` (20) while the process is busy and every `quietIntervalMs`
 * (200) once the last interval used under `quietCpuShare` (5 %) of a core: a 20 ms timer woke an
 * idle svc 50 times a second, ~5 ms of CPU a second for a loop that had nothing to delay. Any
 * traffic (a busy interval) brings the 20 ms rate back at the next tick. What the quiet rate
 * gives up: a stall that starts in a quiet stretch is seen only if a tick falls due during it
 * (always for one of 200 ms or more; for a shorter one, with odds of its length / 200 ms).
 * Returns the stop function.
 */
export function sampleEventLoopDelay(record: (seconds: number) => void, opts: EventLoopSamplerOptions = {}): () => void {
  const intervalMs = opts.intervalMs ?? 20;
  const quietIntervalMs = opts.quietIntervalMs ?? 200;
  const quietCpuShare = opts.quietCpuShare ?? 0.05;
  const cpuUs = opts.cpuUs ?? processCpuUs;
  let last = performance.now();
  let lastCpu = cpuUs();
  let waitMs = intervalMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  function eventLoopTick() {
    const now = performance.now();
    const cpu = cpuUs();
    const late = Math.max(0, now - last - waitMs);
    for (const ms of delaySamples(late, intervalMs, Math.round(waitMs / intervalMs))) record(ms / 1000);
    const quiet = (cpu - lastCpu) / 1000 < quietCpuShare * (now - last);
    last = now;
    lastCpu = cpu;
    waitMs = quiet ? quietIntervalMs : intervalMs;
    schedule();
  }

  function schedule() {
    if (stopped) return;
    timer = setTimeout(eventLoopTick, waitMs);
    timer.unref();
  }

  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
