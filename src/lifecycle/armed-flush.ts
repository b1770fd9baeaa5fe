/** A flush timer that runs only while something waits to be written. */
export interface ArmedFlush {
  /** Arms the timer (a no-op while it is armed): call it with each item queued. */
  arm(): void;
  /** Disarms it for good (a close flushes by itself). */
  stop(): void;
}

/**
 * Runs `flush` `ms` after the first item queued, instead of on an interval: an interval woke
 * an idle svc for nothing (the writers' timers were ~15 of its wake-ups a second). After a
 * flush the timer re-arms while `pending()` says rows are still queued (added meanwhile, or a
 * failed batch queued again), so a row waits at most one period plus a write, as on an
 * interval. The timer is unref'd: it never keeps the process alive. `flush` handles its own
 * errors; a rejection is ignored here.
 */
export function armedFlush(ms: number, flush: () => Promise<unknown>, pending: () => boolean): ArmedFlush {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stopped = false;

  function armedFlushTick() {
    timer = null;
    void flush()
      .catch(() => {})
      .then(() => pending() && arm());
  }

  function arm() {
    if (timer || stopped) return;
    timer = setTimeout(armedFlushTick, ms);
    timer.unref?.();
  }

  return {
    arm,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
