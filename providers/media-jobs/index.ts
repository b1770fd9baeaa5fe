import { ServiceError } from '../../src/http/errors';
import type { Logger } from '../../src/log';
import { responseJsonUpTo, responseTextPrefix } from '../../src/net/limited-body';
import { UpstreamFailure, upstreamTimeout, upstreamUnavailable } from '../errors';
import { statusError } from '../openai-compatible/upstream-call';
import type { CallOptions, JsonBody, MediaJobAnswers, MediaJobStatus, MediaJobStep, MediaKind, Provider, ProviderCalls } from '../types';

/** Bytes of a status or submit answer read at most. */
const JSON_ANSWER_BYTES = 256 * 1024;

/** Error codes an upstream uses for a content-policy refusal (OpenAI's video API says `moderation_blocked`). */
const POLICY_CODES = new Set(['moderation_blocked', 'content_policy_violation', 'content_filter', 'safety']);

/** An upstream job as the submit / poll answers describe it (OpenAI's `/videos` object and the like). */
interface UpstreamJob {
  id?: unknown;
  status?: unknown;
  error?: { code?: unknown; message?: unknown } | string | null;
}

/** What the adapter needs: where the upstream is, its key, the paths per kind, and the injected fetch. */
export interface MediaJobsAdapterOptions {
  id: string;
  baseURL: string;
  apiKey?: string;
  fetch: typeof fetch;
  log: Logger;
  /** Paths of the job collections per kind (default `/videos` and `/audio/jobs`). */
  paths?: Partial<Record<MediaKind, string>>;
}

/** 422 for a prompt the upstream refuses at submit (the reference's ContentViolationError); nothing is charged. */
const contentViolation = (message: string) =>
  new ServiceError(
    422,
    { error: `The provider refused the request for content policy: ${message}`.slice(0, 500) },
    { 'x-svc-is-content-violation': 'true' },
  );

/** The code and message of an upstream error object. */
function errorOf(job: UpstreamJob): { code: string; message: string } {
  if (typeof job.error === 'string') return { code: '', message: job.error };
  return { code: String(job.error?.code ?? ''), message: String(job.error?.message ?? 'the upstream failed the job') };
}

/** An upstream status as svc's job states: queued/in_progress pending, completed done, failed (or refused for a policy code). */
function statusOf(job: UpstreamJob): MediaJobStatus {
  switch (job.status) {
    case 'queued':
    case 'in_progress':
    case 'processing':
    case 'pending':
      return { state: 'pending' };
    case 'completed':
    case 'succeeded':
      return { state: 'done' };
    case 'failed': {
      const e = errorOf(job);
      return { state: POLICY_CODES.has(e.code) ? 'refused' : 'failed', reason: e.message.slice(0, 500) };
    }
    default:
      throw upstreamUnavailable(`the upstream answered an unknown job status "${String(job.status).slice(0, 40)}"`);
  }
}

/**
 * An upstream of asynchronous media jobs in the common submit / poll / download shape
 * (OpenAI's video API: `POST /videos` returns `{id, status}`, `GET /videos/{id}` the status,
 * `GET /videos/{id}/content` the bytes); music and sound effects use the same shape under
 * their own path. Kind `media-jobs` in config.
 */
export function mediaJobsProvider(o: MediaJobsAdapterOptions): Provider {
  const base = o.baseURL.replace(/\/+$/, '');
  const paths: Record<MediaKind, string> = { video: '/videos', audio: '/audio/jobs', ...o.paths };
  const headers = (json: boolean): Record<string, string> => ({
    ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}),
    ...(json ? { 'content-type': 'application/json' } : {}),
  });

  /** One upstream request under the call's deadline and abort; non-2xx answers become the router's errors. */
  async function send(url: string, init: { method: string; body?: string }, call: CallOptions, onPolicy: boolean): Promise<Response> {
    const signal = AbortSignal.any([call.signal, AbortSignal.timeout(call.timeoutMs)]);
    let res: Response;
    try {
      // A submit made for a request continues its trace; the runner's polls carry none.
      const sent = headers(init.body !== undefined);
      if (call.traceparent) sent.traceparent = call.traceparent;
      res = await o.fetch(url, { ...init, headers: sent, signal });
    } catch (error) {
      if (call.signal.aborted) throw error;
      if (signal.aborted) throw upstreamTimeout(call.timeoutMs);
      throw upstreamUnavailable('the upstream could not be reached');
    }
    if (res.ok) return res;
    if (onPolicy && (res.status === 400 || res.status === 422)) {
      const text = await responseTextPrefix(res.clone(), 8192).catch(() => '');
      try {
        const e = errorOf(JSON.parse(text) as UpstreamJob);
        if (POLICY_CODES.has(e.code)) throw contentViolation(e.message);
      } catch (error) {
        if (error instanceof ServiceError) throw error;
      }
    }
    throw await statusError(res);
  }

  async function json(res: Response): Promise<UpstreamJob> {
    try {
      return await responseJsonUpTo<UpstreamJob>(res, JSON_ANSWER_BYTES);
    } catch {
      throw upstreamUnavailable('the upstream sent a broken answer');
    }
  }

  async function run(step: MediaJobStep, call: CallOptions): Promise<MediaJobAnswers[keyof MediaJobAnswers]> {
    const collection = `${base}${paths[step.kind]}`;
    if (step.op === 'submit') {
      const job = await json(await send(collection, { method: 'POST', body: JSON.stringify(step.body as JsonBody) }, call, true));
      if (typeof job.id !== 'string' || job.id.length === 0) throw upstreamUnavailable('the upstream answered a job without an id');
      return { id: job.id };
    }
    const url = `${collection}/${encodeURIComponent(step.id)}`;
    if (step.op === 'poll') return statusOf(await json(await send(url, { method: 'GET' }, call, false)));
    const res = await send(`${url}/content`, { method: 'GET' }, call, false);
    if (!res.body) throw new UpstreamFailure(502, 'Upstream error: the upstream sent no media. Please retry.', true);
    return { body: res.body, contentType: res.headers.get('content-type') ?? 'application/octet-stream' };
  }

  o.log.info('media-jobs provider configured', { provider: o.id, baseURL: base });
  return { id: o.id, simulated: false, capabilities: new Set(['jobs']), jobs: run as ProviderCalls['jobs'] };
}
