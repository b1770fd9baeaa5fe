import { unitCharge } from '../billing/pricing';
import type { ModelCall } from '../pipeline/model-call';
import { renderTranscript, transcriptOf } from './transcript';
import type { TranscriptionRequest, TranscriptionResponse } from './transcription-schema';
import { billedSeconds, readAudioUpload, type AudioUpload } from './upload';

/** The multipart body sent upstream: the checked file, and OpenAI's fields for what the answer needs. */
function upstreamForm(req: TranscriptionRequest, file: AudioUpload, timed: boolean): FormData {
  const form = new FormData();
  form.append('file', new File([file.bytes], file.name, { type: file.mimeType }));
  // Times are asked for only when the answer shows them: not every engine offers verbose_json.
  form.append('response_format', timed ? 'verbose_json' : 'json');
  if (timed) for (const g of ['word', 'segment']) form.append('timestamp_granularities[]', g);
  if (req.language) form.append('language', req.language);
  if (req.prompt) form.append('prompt', req.prompt);
  if (req.temperature !== undefined) form.append('temperature', String(req.temperature));
  return form;
}

/**
 * POST /audio/transcriptions on the metered call: the upload checked by its content and size
 * and its duration measured from its content (never a header the client wrote), the longest
 * it could play reserved and its measured seconds (rounded up) charged at the model's price
 * per audio second, routed to a `transcribe` replica, and the transcript answered in the
 * asked format. A failed call is not charged.
 */
export async function createTranscription(req: TranscriptionRequest, call: ModelCall): Promise<string | TranscriptionResponse> {
  const file = await readAudioUpload(req.file);
  const format = req.response_format ?? 'json';
  const timestamps = req.timestamps === true || (req.timestamp_granularities?.length ?? 0) > 0;
  const timed = timestamps || (format !== 'json' && format !== 'text');
  const sku = `${call.model.id}-asr-audio-second`;
  const charge = unitCharge(call.model, billedSeconds(file.durationSeconds), sku);
  // The hold covers the longest the bytes could play, so no container field can shrink it.
  const hold = unitCharge(call.model, billedSeconds(file.longestSeconds), sku);
  await call.reserve({ promptTokens: 0, completionTokens: 0, extras: [hold] });
  if (call.model.simulated) call.headers['x-svc-simulated'] = 'true';
  let answer: string | TranscriptionResponse;
  try {
    const routed = await call.route('transcribe', (provider, options) => provider.transcribe(upstreamForm(req, file, timed), options));
    routed.done();
    const transcript = transcriptOf(routed.result);
    answer = renderTranscript(transcript, { format, duration: file.durationSeconds, timestamps, language: req.language });
  } catch (error) {
    return call.fail(error);
  }
  const executionMs = Math.round(performance.now() - call.request.startedAt);
  const settled = await call.settle({ promptTokens: 0, completionTokens: 0, executionMs, extras: [charge] });
  call.chargeBeforeHeaders(settled);
  return answer;
}
