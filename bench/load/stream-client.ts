/**
 * The streaming load client, run as its own process (so its CPU is not the proxy's).
 * argv[2] is a JSON job:
 * - {mode: 'ttfb', targets: [{name, url, headers, body}], rounds}: sequential requests,
 *   round-robin over the targets so they share the same noise; prints one JSON line with
 *   the time-to-first-body-byte samples (ms) per target.
 * - {mode: 'open', url, headers, body, count, batch, openTimeoutMs}: opens `count` streams,
 *   `batch` at a time, reads and discards their bytes, prints {event:'holding', ...} once all
 *   were tried, holds them until SIGTERM or a line on stdin, then aborts them all.
 */
import { summary } from '../lib/stats';

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

type Job =
  { mode: 'ttfb'; targets: Target[]; rounds: number } | ({ mode: 'open'; count: number; batch: number; openTimeoutMs: number } & Target);

const job = JSON.parse(process.argv[2] ?? '{}') as Job;
const emit = (obj: unknown) => process.stdout.write(`${JSON.stringify(obj)}\n`);

/** One request: resolves with ms to the first body byte, then drains the rest. */
async function timeFirstByte(t: Target): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(t.url, { method: 'POST', headers: t.headers, body: t.body });
  const reader = res.body!.getReader();
  const first = await reader.read();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`${t.name}: HTTP ${res.status} ${new TextDecoder().decode(first.value)}`);
  while (!(await reader.read()).done) {
    // drain so the connection is reused
  }
  return ms;
}

async function ttfb(targets: Target[], rounds: number) {
  const samples: Record<string, number[]> = Object.fromEntries(targets.map((t) => [t.name, []]));
  for (const t of targets) for (let i = 0; i < 20; i++) await timeFirstByte(t); // warm connections and JIT
  for (let r = 0; r < rounds; r++) for (const t of targets) samples[t.name]!.push(await timeFirstByte(t));
  emit({ event: 'ttfb', samples, summary: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summary(v)])) });
}

async function openStreams(t: Target & { count: number; batch: number; openTimeoutMs: number }) {
  const aborts: AbortController[] = [];
  const errors: Record<string, number> = {};
  let opened = 0;
  let failed = 0;
  let ended = 0;
  const note = (e: unknown) => {
    const key = String((e as Error)?.message ?? e).slice(0, 120);
    errors[key] = (errors[key] ?? 0) + 1;
  };
  const openOne = async () => {
    const ac = new AbortController();
    aborts.push(ac);
    const timer = setTimeout(() => ac.abort(new Error('open timeout')), t.openTimeoutMs);
    try {
      const res = await fetch(t.url, { method: 'POST', headers: t.headers, body: t.body, signal: ac.signal });
      const reader = res.body!.getReader();
      const first = await reader.read();
      clearTimeout(timer);
      if (res.status !== 200) throw new Error(`HTTP ${res.status} ${new TextDecoder().decode(first.value).slice(0, 80)}`);
      opened++;
      void (async () => {
        try {
          while (!(await reader.read()).done) {
            // discard
          }
          ended++;
        } catch {
          // aborted at the end of the hold
        }
      })();
    } catch (e) {
      clearTimeout(timer);
      failed++;
      note(e);
    }
  };
  const started = performance.now();
  // Periodic progress, so a runner that gives up waiting still learns how far opening got.
  const ticker = setInterval(() => emit({ event: 'progress', opened, failed, ended }), 500);
  for (let i = 0; i < t.count; i += t.batch) await Promise.all(Array.from({ length: Math.min(t.batch, t.count - i) }, openOne));
  clearInterval(ticker);
  emit({ event: 'holding', opened, failed, ended, openMs: Math.round(performance.now() - started), errors });
  const close = () => {
    for (const ac of aborts) ac.abort();
    emit({ event: 'closed', opened, failed, ended });
    setTimeout(() => process.exit(0), 50);
  };
  process.on('SIGTERM', close);
  for await (const _ of console) return close();
}

if (job.mode === 'ttfb') await ttfb(job.targets, job.rounds);
else if (job.mode === 'open') await openStreams(job);
else throw new Error(`unknown mode ${(job as { mode: string }).mode}`);
