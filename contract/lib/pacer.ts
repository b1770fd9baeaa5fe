import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { env } from './env';

// The abuse guard of spec 7 counts a caller's non-success answers over a sliding window
// approximated by two fixed buckets: the current one plus the previous one weighted by the part
// of the window still ahead. Its buckets start wherever the deployment's clock says, so the
// pacer assumes the worst alignment: before each deliberate failure it waits until, for every
// bucket phase, that estimate (the new failure included) stays `MARGIN` below the limit. Bursts
// go through while there is room; past that, failures flow at about the limit per window.

/** Failures the pacer keeps in hand below the guard's limit: latency shifts the deployment's timestamps from ours. */
const MARGIN = 2;

/** The most failures in flight the pacer allows under the guard's estimate (the limit minus a margin). */
export const paceLimit = (maxFailures = env.abuseMaxFailures) => Math.max(1, maxFailures - MARGIN);

/**
 * The guard's highest estimate at time `t` (seconds) over every bucket phase, for failures at
 * `times`: the estimate only changes where a bucket edge passes a failure, so those phases suffice.
 */
export function worstEstimate(times: number[], t: number, window: number): number {
  // Either side of each edge too: an edge exactly on a failure is where float rounding decides.
  const edges = [0, 1];
  for (const e of times) edges.push((t - e) / window, (t - e) / window - 1);
  const phases = edges.flatMap((f) => [f - 1e-9, f, f + 1e-9]).filter((f) => f >= 0 && f < 1);
  let worst = 0;
  for (const f of phases) {
    const start = t - f * window;
    let current = 0;
    let previous = 0;
    for (const e of times)
      if (e >= start && e <= t) current++;
      else if (e >= start - window && e < start) previous++;
    worst = Math.max(worst, current + Math.floor(previous * (1 - f)));
  }
  return worst;
}

/** The earliest time from `now` (seconds) at which one more failure keeps the worst estimate within `limit`. */
export function nextSlot(times: number[], now: number, window: number, limit: number): number {
  const recent = times.filter((e) => e > now - 2 * window);
  for (let t = now; ; t += 0.1) if (worstEstimate([...recent, t], t, window) <= limit) return t;
}

/**
 * How many failures the pacer lets through in `seconds`: from a clean start (a new account: a
 * burst, then the steady pace), or `warm`, right after as many as it allows (a run that follows
 * another against the same account: the steady pace only).
 */
export function capacity(seconds: number, o: { warm?: boolean; window?: number; limit?: number } = {}): number {
  const { window = env.abuseWindow, limit = paceLimit() } = o;
  const times: number[] = [];
  for (let t = o.warm ? -3 * window : 0; (t = nextSlot(times, t, window, limit)) <= seconds;) times.push(t);
  return times.filter((t) => t >= 0).length;
}

/**
 * Who the guard charges a failure to (src/gates/abuse-guard.ts): the key's account, a
 * credential that does not authenticate (its fingerprint), or the IP of a request without one.
 */
export type Identity = string;

/** The file where a run keeps the failure times of one identity, so back-to-back runs pace as one. */
function logFile(identity: Identity): string {
  const id = createHash('sha256').update(`${env.baseUrl}\0${identity}`).digest('hex').slice(0, 24);
  return join(tmpdir(), `svc-contract-failures-${id}.json`);
}

function read(identity: Identity): number[] {
  const file = logFile(identity);
  if (!existsSync(file)) return [];
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as number[]).filter((t) => t > Date.now() / 1000 - 2 * env.abuseWindow);
  } catch {
    return [];
  }
}

/** Waits until one more deliberate failure of `identity` keeps the guard below its limit (nothing when there is no guard). */
export async function paceFailure(identity: Identity): Promise<void> {
  if (env.abuseMaxFailures === 0) return;
  const now = Date.now() / 1000;
  const slot = nextSlot(read(identity), now, env.abuseWindow, paceLimit());
  if (slot > now) await Bun.sleep(Math.ceil((slot - now) * 1000));
}

/** Records a non-success answer the guard counts against `identity`. */
export function recordFailure(identity: Identity): void {
  if (env.abuseMaxFailures === 0) return;
  writeFileSync(logFile(identity), JSON.stringify([...read(identity), Date.now() / 1000]));
}
