/**
 * The media-jobs load client, run as its own process (so its CPU is not the proxy's).
 * argv[2] is a JSON job {api, base, headers, submit, model, concurrency, durationS, pollMs}:
 * `concurrency` workers each submit a job, poll it every `pollMs` until its media comes, read
 * the media, and start the next, for `durationS`; jobs in flight at the end are finished, so
 * every job's work falls inside the run. `api: 'openai'` speaks OpenAI's video protocol
 * (`POST /videos`, `GET /videos/{id}` until completed, `GET /videos/{id}/content`: the bare
 * proxy relays it), `api: 'svc'` svc's (`POST /video/queue`, `POST /video/retrieve` until it
 * answers the media). Prints one JSON line: jobs done, failures, requests, latency p50/p99.
 */
import { summary } from '../lib/stats';

interface Job {
  api: 'openai' | 'svc';
  base: string;
  headers: Record<string, string>;
  submit: Record<string, unknown>;
  model: string;
  concurrency: number;
  durationS: number;
  pollMs: number;
}

const job = JSON.parse(process.argv[2] ?? '{}') as Job;
const headers = { 'content-type': 'application/json', ...job.headers };
let requests = 0;
const post = (path: string, body: unknown) => {
  requests++;
  return fetch(`${job.base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
};
const get = (path: string) => {
  requests++;
  return fetch(`${job.base}${path}`, { headers });
};

/** Polls until the media arrives; returns its size, or throws on a failed job or an HTTP error. */
async function untilMedia(poll: () => Promise<Response | null>): Promise<number> {
  for (;;) {
    await Bun.sleep(job.pollMs);
    const media = await poll();
    if (media) return (await media.arrayBuffer()).byteLength;
  }
}

async function oneJob(): Promise<number> {
  if (job.api === 'openai') {
    const res = await post('/videos', job.submit);
    if (res.status !== 200) throw new Error(`submit: HTTP ${res.status}`);
    const { id } = (await res.json()) as { id: string };
    return untilMedia(async () => {
      const status = (await (await get(`/videos/${id}`)).json()) as { status: string };
      if (status.status === 'failed') throw new Error('job failed');
      if (status.status !== 'completed') return null;
      const media = await get(`/videos/${id}/content`);
      if (media.status !== 200) throw new Error(`download: HTTP ${media.status}`);
      return media;
    });
  }
  const res = await post('/video/queue', job.submit);
  if (res.status !== 200) throw new Error(`queue: HTTP ${res.status} ${await res.text()}`);
  const { queue_id } = (await res.json()) as { queue_id: string };
  return untilMedia(async () => {
    const answer = await post('/video/retrieve', { model: job.model, queue_id });
    if (answer.status !== 200) throw new Error(`retrieve: HTTP ${answer.status} ${await answer.text()}`);
    if (!(answer.headers.get('content-type') ?? '').startsWith('application/json')) return answer;
    const body = (await answer.json()) as { status?: string };
    if (body.status !== 'PROCESSING' && body.status !== 'QUEUED') throw new Error(`retrieve: ${JSON.stringify(body)}`);
    return null;
  });
}

const until = performance.now() + job.durationS * 1000;
const latencies: number[] = [];
const errors: string[] = [];
let bytes = 0;
await Promise.all(
  Array.from({ length: job.concurrency }, async () => {
    while (performance.now() < until) {
      const t0 = performance.now();
      try {
        bytes += await oneJob();
        latencies.push(performance.now() - t0);
      } catch (error) {
        errors.push(String((error as Error).message));
      }
    }
  }),
);
process.stdout.write(
  `${JSON.stringify({ event: 'jobs', jobs: latencies.length, failures: errors.length, firstError: errors[0] ?? null, requests, bytes, latencyMs: summary(latencies) })}\n`,
);
process.exit(0);
