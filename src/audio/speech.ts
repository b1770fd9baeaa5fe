import { invalidField } from '../http/errors';
import { wholeBody } from '../http/large-body';
import type { ModelCall } from '../pipeline/model-call';
import type { JsonBody } from '../../providers/types';
import { SPEECH_MEDIA_TYPES, type SpeechRequest } from './speech-schema';
import { meteredSpeechStream, readAll } from './speech-stream';
import { modelVoice } from './openai-voices';
import { CLONED_VOICE, type VoiceStore } from './voices';

/**
 * The voice a request speaks with: one of the model's voices (OpenAI's names mapped to
 * them, openai-voices.ts), or a `vv_` voice of the
 * caller's own account made for this model. Another account's voice is refused exactly like
 * an unknown one, so its existence is never revealed.
 */
async function voiceOf(req: SpeechRequest, call: ModelCall, voices: VoiceStore): Promise<{ voice: string; cloned: boolean }> {
  const spec = call.model.config.audio;
  const voice = req.voice ?? spec?.defaultVoice ?? 'af_sky';
  if (CLONED_VOICE.test(voice)) {
    const accountId = call.request.caller?.accountId;
    const found = accountId ? await voices.find(accountId, voice) : null;
    if (!found) throw invalidField('voice', `unknown voice "${voice}"`);
    if (found.modelId !== call.model.id) throw invalidField('voice', `the voice "${voice}" was made for model "${found.modelId}"`);
    return { voice, cloned: true };
  }
  const own = spec ? modelVoice(spec, voice) : voice;
  if (own === undefined || (spec?.voices && !spec.voices.includes(own)))
    throw invalidField('voice', `unknown voice "${voice}" for model "${call.model.id}" (GET /models?type=tts lists its voices)`);
  return { voice: own, cloned: false };
}

/** The body sent upstream: OpenAI's speech fields, and the reference's extras only when the client set them. */
function upstreamBody(req: SpeechRequest, voice: string, format: string): JsonBody {
  const prompt = req.prompt ?? req.instructions;
  return {
    input: req.input,
    voice,
    response_format: format,
    speed: req.speed ?? 1,
    ...(req.streaming ? { stream: true } : {}),
    ...(req.language !== undefined ? { language: req.language } : {}),
    ...(prompt !== undefined ? { instructions: prompt } : {}),
    ...(req.temperature !== undefined ? { temperature: req.temperature } : {}),
    ...(req.top_p !== undefined ? { top_p: req.top_p } : {}),
  };
}

/**
 * POST /audio/speech on the metered call: the format and voice checked against the model,
 * the input's characters reserved at the model's price per 1M characters (402/429 before any
 * upstream call), routed to a `speech` replica. Streamed, the bytes pass through as they
 * come and the call settles when the last one is delivered; otherwise the whole file is read
 * first. Audio that was not delivered (timeout, 5xx, a stream broken mid-audio) is not charged.
 */
export async function createSpeech(req: SpeechRequest, call: ModelCall, voices: VoiceStore): Promise<Response> {
  const spec = call.model.config.audio;
  const format = req.response_format ?? 'mp3';
  if (spec?.formats && !spec.formats.includes(format))
    throw invalidField('response_format', `"${format}" is not produced by model "${call.model.id}" (it offers ${spec.formats.join(', ')})`);
  const limit = spec?.maxInputCharacters;
  const characters = [...req.input].length;
  if (limit !== undefined && characters > limit)
    throw invalidField('input', `must be at most ${limit} characters for model "${call.model.id}"`);
  const { voice, cloned } = await voiceOf(req, call, voices);
  const cloning = spec?.voiceCloning;
  // A persistent voice's retention window starts again with each successful use.
  const onDelivered = cloned && cloning ? () => voices.used(voice, cloning) : undefined;
  await call.reserve({ promptTokens: characters, completionTokens: 0 });
  if (call.model.simulated) call.headers['x-svc-simulated'] = 'true';
  const headers = { 'content-type': SPEECH_MEDIA_TYPES[format], 'content-disposition': `inline; filename="speech.${format}"` };
  const usage = { promptTokens: characters, completionTokens: 0 };
  if (req.streaming)
    return new Response(await meteredSpeechStream(call, upstreamBody(req, voice, format), usage, onDelivered), { headers });
  let bytes: Uint8Array;
  try {
    const routed = await call.route('speech', (provider, options) => provider.speech(upstreamBody(req, voice, format), options));
    try {
      bytes = await readAll(routed.result.body);
    } finally {
      routed.done();
    }
  } catch (error) {
    return call.fail(error);
  }
  const settled = await call.settle({ ...usage, executionMs: Math.round(performance.now() - call.request.startedAt) });
  call.chargeBeforeHeaders(settled);
  await onDelivered?.();
  return new Response(wholeBody(bytes), { headers });
}
