import { fileTypeOf } from '../http/file-type';
import type { JobsDeps } from './deps';
import { invalidField, ServiceError } from '../http/errors';
import { guardedFetch, UrlRefused } from '../net/guarded-fetch';
import type { CallContext } from '../pipeline/metered-call';
import { ModelCall } from '../pipeline/model-call';
import { unitCharge } from '../billing/pricing';
import type { JobsRuntime } from './runtime';
import type { VideoTranscriptionRequest } from './schema';

/** The ASR model that transcribes video: `jobs.transcriptionModel`, else the catalog's first `asr` model. */
function transcriptionModel(deps: JobsDeps, rt: JobsRuntime): string {
  const id = rt.config.transcriptionModel ?? deps.models.list('asr')[0]?.id;
  if (!id) throw new ServiceError(503, { error: 'No transcription model is configured (jobs.transcriptionModel or an asr model)' });
  return id;
}

/** The media behind `url`, fetched through the SSRF guard with the input limits, checked to be audio or video by its content. */
async function fetchMedia(deps: JobsDeps, rt: JobsRuntime, url: string, signal: AbortSignal) {
  if (!/^https?:\/\//i.test(url)) throw invalidField('url', 'must be an http(s) URL');
  let body: Uint8Array;
  try {
    const doc = await guardedFetch(url, {
      allowPrivate: deps.config.allowPrivateUrls,
      fetch: deps.fetch,
      timeoutMs: rt.config.inputTimeoutMs,
      maxBytes: rt.config.maxInputBytes,
      signal,
      headers: { accept: 'video/*,audio/*' },
    });
    body = doc.body;
  } catch (error) {
    if (error instanceof UrlRefused) throw invalidField('url', `was not fetched: ${error.message}`);
    throw error;
  }
  const type = await fileTypeOf(body);
  if (!type || !(type.mime.startsWith('video/') || type.mime.startsWith('audio/')))
    throw invalidField(
      'url',
      `must point at a video or audio file (got ${type?.mime ?? 'unrecognised content'}); web pages are not transcribed`,
    );
  return { body, type };
}

/**
 * POST /video/transcriptions: the speech of the video (or audio) at a public URL as text.
 * The media is fetched through the SSRF guard, then transcribed on the metered call of the
 * transcription model (one call at its per-unit price; nothing charged when it fails).
 */
export async function transcribeVideo(deps: JobsDeps, rt: JobsRuntime, ctx: CallContext, req: VideoTranscriptionRequest) {
  const call = ModelCall.forModel(
    { models: deps.models, meter: deps.meter, router: deps.providers.router, log: deps.log },
    ['asr'],
    transcriptionModel(deps, rt),
    ctx,
  );
  const media = await fetchMedia(deps, rt, req.url, call.signal);
  const charge = unitCharge(call.model, 1, `${call.model.id}-video-transcription`);
  await call.reserve({ promptTokens: 0, completionTokens: 0, extras: [charge] });
  let transcript: string;
  let lang: string | undefined;
  try {
    const form = new FormData();
    form.set('file', new Blob([media.body as Uint8Array<ArrayBuffer>], { type: media.type.mime }), `media.${media.type.ext}`);
    form.set('response_format', 'json');
    const routed = await call.route('transcribe', (provider, options) => {
      form.set('model', options.upstreamModel);
      return provider.transcribe(form, options);
    });
    routed.done();
    if (typeof routed.result.text !== 'string')
      throw new ServiceError(502, { error: 'Upstream error: the transcription had no text. Please retry.' });
    transcript = routed.result.text;
    lang = typeof routed.result.language === 'string' ? routed.result.language : undefined;
  } catch (error) {
    return call.fail(error);
  }
  const settled = await call.settle({
    promptTokens: 0,
    completionTokens: 0,
    extras: [charge],
    executionMs: Math.round(performance.now() - call.request.startedAt),
  });
  call.chargeBeforeHeaders(settled);
  if (req.response_format === 'text') {
    call.headers['content-type'] = 'text/plain; charset=utf-8';
    return transcript;
  }
  return lang ? { transcript, lang } : { transcript };
}
