import { execFileSync } from 'node:child_process';

function stamp(date: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return (
    `${date.getUTCFullYear()}${p(date.getUTCMonth() + 1)}${p(date.getUTCDate())}.` +
    `${p(date.getUTCHours())}${p(date.getUTCMinutes())}${p(date.getUTCSeconds())}`
  );
}

function lastCommitDate(): Date | null {
  try {
    const out = execFileSync('git', ['log', '-1', '--format=%ct'], { stdio: ['ignore', 'pipe', 'ignore'], timeout: 2000 });
    const seconds = Number(out.toString().trim());
    return Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000) : null;
  } catch {
    return null;
  }
}

/**
 * The service revision `YYYYMMDD.HHMMSS` (spec 9): SVC_VERSION when set, else the time of
 * the last commit, else the start time. Computed once; sent as x-svc-version and info.version.
 */
export const SVC_VERSION: string = (() => {
  const fromEnv = process.env.SVC_VERSION;
  if (fromEnv && /^\d{8}\.\d{6}$/.test(fromEnv)) return fromEnv;
  return stamp(lastCommitDate() ?? new Date());
})();
