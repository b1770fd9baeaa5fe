import { upstreamRejected } from '../errors';
import type { CallOptions, JsonBody, MediaJobAnswers, MediaJobStep, MediaKind, ProviderCalls } from '../types';
import { renderClip } from './mp4';
import { melody, wavFile } from './wav';

/** The simulator's job options: how long a job takes (config `options.jobMs`, default 5 s). */
export interface MediaJobOptions {
  jobMs?: number;
}

/**
 * A simulated job, carried in its id (base64url JSON) rather than in memory, so a job
 * survives a restart of svc and any instance can poll it: the kind, when it started, how
 * long it takes, how it ends, and what to render.
 */
interface SimJob {
  k: MediaKind;
  t: number;
  ms: number;
  /** ok, fail, or refuse (content policy): the prompt asks with `[simulate:fail]` or `[simulate:refuse]`. */
  o: 'ok' | 'fail' | 'refuse';
  s: number;
  w: number;
  h: number;
}

/** Longest side of a simulated frame: the clip is real H.264 but kept small so encoding stays quick. */
const MAX_SIDE = 480;
const HEIGHTS: Record<string, number> = { '256p': 256, '360p': 360, '480p': 480, '540p': 540, '580p': 580, '720p': 720 };

/** Frame size for a resolution and aspect ratio, scaled to MAX_SIDE at most, in multiples of 16 (what the encoder takes best). */
function frameSize(resolution: unknown, aspect: unknown): { w: number; h: number } {
  const [a, b] = typeof aspect === 'string' && /^\d+:\d+$/.test(aspect) ? aspect.split(':').map(Number) : [16, 9];
  const height = HEIGHTS[String(resolution)] ?? 720;
  let w = (height * a!) / b!;
  let h = height;
  const scale = Math.min(1, MAX_SIDE / Math.max(w, h));
  w = Math.max(16, Math.round((w * scale) / 16) * 16);
  h = Math.max(16, Math.round((h * scale) / 16) * 16);
  return { w, h };
}

const encode = (job: SimJob) => Buffer.from(JSON.stringify(job)).toString('base64url');
function decode(id: string): SimJob {
  try {
    return JSON.parse(Buffer.from(id, 'base64url').toString()) as SimJob;
  } catch {
    throw upstreamRejected(404, 'unknown simulated job');
  }
}

function submit(kind: MediaKind, body: JsonBody, jobMs: number): { id: string } {
  const prompt = String(body.prompt ?? '');
  const o = prompt.includes('[simulate:refuse]') ? 'refuse' : prompt.includes('[simulate:fail]') ? 'fail' : 'ok';
  const seconds =
    kind === 'video'
      ? Number(/^(\d+)s$/.exec(String(body.duration))?.[1] ?? 5)
      : Math.max(1, Math.min(300, Number(body.duration_seconds ?? 10)));
  const { w, h } = frameSize(body.resolution, body.aspect_ratio);
  return { id: encode({ k: kind, t: Date.now(), ms: jobMs, o, s: seconds, w, h }) };
}

/** The media of a finished simulated job: an H.264 MP4 at 12 fps, or a WAV melody at 22.05 kHz. */
async function download(job: SimJob) {
  if (job.k === 'video') {
    const bytes = await renderClip({ width: job.w, height: job.h, fps: 12, seconds: job.s, seed: job.t % 251 });
    return { body: new Response(bytes).body!, contentType: 'video/mp4' };
  }
  const rate = 22_050;
  return { body: new Response(wavFile(melody(job.s, rate, job.t % 6), rate)).body!, contentType: 'audio/wav' };
}

/** The simulator's `jobs` capability: submit, poll and download with no upstream; every state reachable on demand. */
export function simulatedMediaJobs(options: MediaJobOptions): ProviderCalls['jobs'] {
  const jobMs = typeof options.jobMs === 'number' && options.jobMs >= 0 ? options.jobMs : 5000;
  async function run(step: MediaJobStep, _call: CallOptions): Promise<MediaJobAnswers[keyof MediaJobAnswers]> {
    if (step.op === 'submit') return submit(step.kind, step.body, jobMs);
    const job = decode(step.id);
    if (step.op === 'poll') {
      if (Date.now() - job.t < job.ms) return { state: 'pending' };
      if (job.o === 'refuse') return { state: 'refused', reason: 'the simulated provider refused the prompt for content policy' };
      if (job.o === 'fail') return { state: 'failed', reason: 'the simulated provider failed the job' };
      return { state: 'done' };
    }
    return download(job);
  }
  return run as ProviderCalls['jobs'];
}
