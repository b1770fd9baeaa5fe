/**
 * A full garbage collection once the process goes quiet after a busy spell, so that memory a
 * load phase left behind goes back to the OS instead of staying resident until the next load.
 *
 * Why it is needed: JavaScriptCore collects when the program allocates, so an idle process
 * never collects; the garbage of the last seconds of load (measured 10 s after 10 s of load at
 * full speed: ~430,000 dead objects, ~68 MB of heap and ~40 MB of external memory) stays, and
 * with it the allocator pages under it (RSS 160 % of idle; 118 % once collected and purged).
 *
 * The rule, read once a second from the process's own CPU time and RSS (nothing on the request
 * path): collect when RSS is `growthBytes` or more above its lowest reading since the last
 * collection and the process has used under `quietCpuUs` of CPU in each of the last
 * `quietTicks` seconds. Light traffic counts as quiet: a collection then costs tens of
 * milliseconds once per `growthBytes` of growth, not per request.
 *
 * The default, 50 ms a second (5 % of a core), sits well above an idle svc's own floor: its
 * timers, the jobs poll and the allocator's scavenger take 17-23 ms a second on the embedded
 * backend (per-thread schedstat, 2-core machine). At the earlier 20 ms that floor alone often
 * failed the test, so the collection came anywhere from 3 to 25 s after a load stopped.
 */
export interface IdleCollectorReadings {
  /** Resident set size in bytes. */
  rss(): number;
  /** CPU time of the whole process so far, in microseconds. */
  cpuUs(): number;
  /** Runs a full, synchronous collection. */
  collect(): void;
}

/** Thresholds of the idle collector. */
export interface IdleCollectorOptions {
  growthBytes: number;
  quietTicks?: number;
  quietCpuUs?: number;
}

/** What one tick decided, for the log and the tests. */
export type IdleTick = { collected: false } | { collected: true; rssBefore: number; floorBefore: number; tookMs: number };

/** The collector's decision, one call a tick; pure apart from the readings it is given. */
export function idleCollector(readings: IdleCollectorReadings, opts: IdleCollectorOptions) {
  const quietTicks = opts.quietTicks ?? 2;
  const quietCpuUs = opts.quietCpuUs ?? 50_000;
  let floor = readings.rss();
  let lastCpu = readings.cpuUs();
  let quiet = 0;
  return function tick(): IdleTick {
    const rss = readings.rss();
    const cpu = readings.cpuUs();
    quiet = cpu - lastCpu < quietCpuUs ? quiet + 1 : 0;
    lastCpu = cpu;
    if (rss < floor) floor = rss;
    if (quiet < quietTicks || rss - floor < opts.growthBytes) return { collected: false };
    const floorBefore = floor;
    const started = performance.now();
    readings.collect();
    const tookMs = performance.now() - started;
    // The allocator returns the freed pages over the next moments: the floor is whatever the
    // following ticks read, and the CPU the collection took does not count as activity.
    floor = readings.rss();
    lastCpu = readings.cpuUs();
    quiet = 0;
    return { collected: true, rssBefore: rss, floorBefore, tookMs };
  };
}

/** The process's own readings: VmRSS, CPU time of every thread, and `Bun.gc(true)`. */
export const processReadings: IdleCollectorReadings = {
  rss: () => process.memoryUsage.rss(),
  cpuUs: () => {
    const u = process.cpuUsage();
    return u.user + u.system;
  },
  collect: () => Bun.gc(true),
};

/**
 * Starts the idle collector on a one-second timer that does not keep the process alive;
 * `growthMb` 0 turns it off. `onCollect` hears each collection (for a debug log line).
 */
export function startIdleCollector(growthMb: number, onCollect: (t: Extract<IdleTick, { collected: true }>) => void) {
  if (growthMb <= 0) return { stop() {} };
  const tick = idleCollector(processReadings, { growthBytes: growthMb * 1024 * 1024 });
  const timer = setInterval(function idleCollectTick() {
    const t = tick();
    if (t.collected) onCollect(t);
  }, 1000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
