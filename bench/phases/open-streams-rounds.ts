import { openStreamsPhase, type OpenStreamsResult } from './open-streams';
import type { Target, UpstreamControl } from '../lib/targets';

/** The hard open-file limit children can raise their soft limit to. */
function hardFdLimit(): number {
  const out = Bun.spawnSync(['sh', '-c', 'ulimit -Hn']).stdout.toString().trim();
  return out === 'unlimited' ? 1_048_576 : Number(out) || 1024;
}

/**
 * The held-stream phases of a full run: 1,000 streams through every target (a warm-up round
 * first), then, with `with10k`, as many as the fd limit allows up to 10,000 through the bare
 * proxy and svc on memory+pglite. A round that would not fit in `spareMs()` is skipped, noted.
 */
export async function openStreamsRounds(o: {
  targets: Target[];
  up: UpstreamControl;
  body: string;
  with10k: boolean;
  /** Time left in the run's budget for these phases, in ms. */
  spareMs: () => number;
  notes: string[];
  attempt: <T>(what: string, fn: () => Promise<T>) => Promise<T | null>;
  log: (msg: string) => void;
}): Promise<Record<string, Record<string, OpenStreamsResult>>> {
  const { notes } = o;
  const out: Record<string, Record<string, OpenStreamsResult>> = {};
  // A proxy holds two sockets per stream (client and upstream): the hard fd limit of this
  // machine, not svc, caps how many streams one process can hold.
  const hardFds = hardFdLimit();
  const maxStreams = Math.floor((hardFds - 300) / 2);
  if (o.with10k && maxStreams < 10_000)
    notes.push(
      `the 10,000-stream phase holds ${maxStreams} streams: the hard open-file limit here is ${hardFds} and a proxy needs two sockets per stream`,
    );
  for (const count of o.with10k ? [1000, Math.min(10_000, maxStreams)] : [1000]) {
    const results: Record<string, OpenStreamsResult> = {};
    // Opening 10k streams while forwarding the already open ones' chunks (20 ms apart) saturates
    // two cores; svc needs about a minute for it on this machine.
    const timeoutMs = count > 1000 ? 90_000 : 20_000;
    // The 10k phase is about Bun's fetch limit and per-stream memory, which the backend does not
    // change: it runs on the bare proxy and svc on memory+pglite only, to keep the run in 10 minutes.
    if (count > 1000 && o.targets.some((x) => x.name === 'svc:redis+postgres'))
      notes.push('the 10,000-stream phase does not run on svc:redis+postgres (time budget; the backend does not change it)');
    for (const t of count > 1000 ? o.targets.filter((x) => x.name !== 'svc:redis+postgres') : o.targets) {
      if (o.spareMs() < timeoutMs + 10_000) {
        notes.push(`${count} open streams on ${t.name} skipped: not enough time left in the run's budget`);
        continue;
      }
      o.log(`holding ${count} open streams through ${t.name}`);
      // A first round at 1,000 sizes the heap for that load; the measured round then shows
      // what holding the streams costs, not how much the GC had given back while the
      // process idled through the other targets' phases (that made the growth swing
      // between ~50 and ~106 MB from run to run).
      if (count <= 1000)
        await o.attempt(`${count} open streams on ${t.name} (warm-up)`, () =>
          openStreamsPhase(t, o.up, o.body, { count, holdMs: 300, timeoutMs }),
        );
      const r = await o.attempt(`${count} open streams on ${t.name}`, () =>
        openStreamsPhase(t, o.up, o.body, { count, holdMs: 1500, timeoutMs }),
      );
      if (r) results[t.name] = r;
    }
    out[count > 1000 ? '10000' : '1000'] = results;
  }

  return out;
}
