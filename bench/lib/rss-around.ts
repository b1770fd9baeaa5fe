import { rssBytes } from './proc';

/** RSS of a target just before a load and some seconds after it ended. */
export interface RssAroundLoad {
  beforeMB: number;
  afterMB: number;
  /** (after - before) / before, in %. */
  growthPct: number;
}

const MB = 1024 * 1024;

/**
 * Reads `pid`'s RSS now; `after(ms, from)` reads it again `ms` after `from` (`performance.now()`
 * when the load's last request completed; when it is called, without one).
 */
export function rssAround(pid: number) {
  const before = rssBytes(pid);
  return {
    async after(ms: number, from = performance.now()): Promise<RssAroundLoad> {
      await Bun.sleep(Math.max(0, from + ms - performance.now()));
      const after = rssBytes(pid);
      return {
        beforeMB: Math.round(before / MB),
        afterMB: Math.round(after / MB),
        growthPct: Math.round(((after - before) / before) * 1000) / 10,
      };
    },
  };
}
