import { callOf } from '../lib/rpc-calls';
import { cpuMicros, startChild, withTimeout } from '../lib/proc';
import { round, summary } from '../lib/stats';
import type { Target } from '../lib/targets';
import { RPC_BATCH_SIZE } from '../servers/upstream-families';
import { BENCH_MODEL, BENCH_TTS_MODEL, BENCH_VIDEO_MODEL } from '../servers/svc-config';
import { measureLoad, type Durations, type MeasuredLoad } from './throughput';

/** Where a target serves the newer families (svc's routes, or the bare proxy's relays of them). */
export interface FamilyRoutes {
  speechUrl: string;
  responsesUrl: string;
  rpcUrl: string;
  /** Media jobs: svc's queue/retrieve routes, or OpenAI's video protocol relayed by the bare proxy. */
  jobs: { api: 'openai' | 'svc'; base: string };
}

/** The same bytes go to every target. */
export const FAMILY_BODIES = {
  speech: JSON.stringify({ model: BENCH_TTS_MODEL, input: 'The quick brown fox jumps over the lazy dog.', response_format: 'wav' }),
  responsesStream: JSON.stringify({ model: BENCH_MODEL, input: 'Say hello.', max_output_tokens: 64, stream: true }),
  rpcBatch: JSON.stringify(Array.from({ length: RPC_BATCH_SIZE }, (_, i) => callOf(i))),
  job: { model: BENCH_VIDEO_MODEL, prompt: 'A lighthouse in a storm', duration: '5s', resolution: '720p' },
};

/** The jobs client's run (bench/load/jobs-client.ts) with the proxy's CPU over it. */
export interface JobsLoad {
  jobs: number;
  failures: number;
  firstError: string | null;
  /** Requests the client made per finished job (submit, polls, download). */
  requestsPerJob: number | null;
  latencyMs: ReturnType<typeof summary>;
  /** CPU µs of the proxy process per finished job: submit, every poll, the download and, in svc, its runner's work. */
  cpuPerJobUs: number | null;
}

/** What the families phase measures for one target; a family that failed is null, with its reason in `errors`. */
export interface FamiliesResult {
  speech: MeasuredLoad | null;
  responsesStream: MeasuredLoad | null;
  rpcBatch: MeasuredLoad | null;
  job: JobsLoad | null;
  errors: string[];
}

/** Jobs in flight at once, and how often each is polled. */
const JOBS = { concurrency: 32, pollMs: 100 };

/** Runs the jobs client for `durationS` against `target` and divides the proxy's CPU by the jobs it finished. */
export async function measureJobs(target: Target, routes: FamilyRoutes, durationS: number): Promise<JobsLoad> {
  const spec = { ...routes.jobs, headers: target.headers, submit: FAMILY_BODIES.job, model: BENCH_VIDEO_MODEL, durationS, ...JOBS };
  const before = cpuMicros(target.pid);
  const child = startChild('jobs client', [process.execPath, 'bench/load/jobs-client.ts', JSON.stringify(spec)]);
  try {
    const [line] = await child.waitFor(/^\{"event":"jobs".*\}$/, (durationS + 30) * 1000);
    const cpu = cpuMicros(target.pid) - before;
    const r = JSON.parse(line!) as Omit<JobsLoad, 'cpuPerJobUs' | 'requestsPerJob'> & { requests: number };
    return {
      jobs: r.jobs,
      failures: r.failures,
      firstError: r.firstError,
      requestsPerJob: r.jobs > 0 ? round(r.requests / r.jobs, 2) : null,
      latencyMs: r.latencyMs,
      cpuPerJobUs: r.jobs > 0 ? round(cpu / r.jobs, 1) : null,
    };
  } finally {
    await withTimeout('jobs client exit', 5000, child.stop()).catch(() => {});
  }
}

/**
 * CPU per request of the newer families, each warmed at full speed first, then measured at a
 * fixed rate every target sees alike: `/audio/speech` (a 48 KB WAV) at 200 req/s, `/responses`
 * streams (50 text deltas) at 400 streams/s, JSON-RPC batches of 10 calls at 500 req/s, and
 * media jobs (32 in flight, each polled every 100 ms until its 4 KB of media is read), warmed
 * for `jobsWarmS`.
 */
export async function familiesPhase(
  target: Target,
  routes: FamilyRoutes,
  d: Durations & { familyWarmS: number; jobsWarmS?: number },
): Promise<FamiliesResult> {
  const errors: string[] = [];
  const tryFamily = async <T>(name: string, run: () => Promise<T>): Promise<T | null> => {
    try {
      return await run();
    } catch (error) {
      errors.push(`${name}: ${String((error as Error).message).split('\n')[0]}`);
      return null;
    }
  };
  const load = (url: string, body: string, rate: number) =>
    tryFamily(new URL(url).pathname, async () => {
      await measureLoad(target, body, { connections: 16, durationS: d.familyWarmS }, url);
      return measureLoad(target, body, { connections: 16, durationS: d.phaseS, rate }, url);
    });
  const speech = await load(routes.speechUrl, FAMILY_BODIES.speech, 200);
  const responsesStream = await load(routes.responsesUrl, FAMILY_BODIES.responsesStream, 400);
  const rpcBatch = await load(routes.rpcUrl, FAMILY_BODIES.rpcBatch, 500);
  const job = await tryFamily('jobs', async () => {
    // Longer than the other families' warm-up: the job path runs statements the earlier phases
    // never ran, and their compilation went on for ~10 s (the JIT, and JavaScriptCore tiering
    // PGlite's WebAssembly up on its helper threads, which Redis + Postgres has none of): after
    // 2 s it was 2.2-3.4 ms of a job's 5.8-7.7, after 12 s 0.4 ms (bench/jobs-cost.ts --warm 2
    // against --warm 12, embedded, per thread). A one-off cost, kept out of the window as the
    // throughput phases' settle keeps it out of theirs.
    await measureJobs(target, routes, d.jobsWarmS ?? d.familyWarmS);
    return measureJobs(target, routes, d.phaseS);
  });
  return { speech, responsesStream, rpcBatch, job, errors };
}
