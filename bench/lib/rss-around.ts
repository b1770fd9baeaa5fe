import { rssBytes } from './proc';

/** RSS of a target just before a load and some seconds after it ended. */
export interface RssAroundLoad {
  beforeMB: number;
  afterMB: number;
  /** (after - before) / before, in %. */
  growthPct: number;
}

const MB = 1024 * 1024;

/** Reads `pid`'s RSS now; `after(ms)` reads it again `ms` from when it is called (the load's end). */
export function rssAround(pid: number) {
  const before = rssBytes(pid);
  return {
    async after(ms: number): Promise<RssAroundLoad> {
      await Bun.sleep(ms);
      const after = rssBytes(pid);
      return {
        beforeMB: Math.round(before / MB),
        afterMB: Math.round(after / MB),
        growthPct: Math.round(((after - before) / before) * 1000) / 10,
      };
    },
  };
}
