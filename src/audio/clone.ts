import { invalidField } from '../http/errors';
import type { ModelCatalog } from '../models/catalog';
import { readAudioUpload } from './upload';
import type { ClonedVoice, VoiceStore } from './voices';

/** The reference's default cloning model. */
export const DEFAULT_CLONING_MODEL = 'tts-chatterbox-hd';

/**
 * POST /audio/voices: a sample checked like any upload (content, size, truncation), in a
 * container and of a length the model accepts, stored as a `vv_` voice of the caller's
 * account for that model, for the model's retention window.
 */
export async function createClonedVoice(
  body: { file?: unknown; model?: string },
  accountId: string,
  o: { models: ModelCatalog; voices: VoiceStore },
): Promise<{ id: string; model: string }> {
  const name = body.model ?? DEFAULT_CLONING_MODEL;
  const model = o.models.resolve(name);
  const cloning = model?.type === 'tts' ? model.config.audio?.voiceCloning : undefined;
  if (!model || !cloning)
    throw invalidField('model', `"${name}" is not a tts model that clones voices (GET /models?type=tts: voice_cloning)`);
  const sample = await readAudioUpload(body.file);
  const accepted = cloning.acceptedFormats;
  if (accepted && !accepted.includes(sample.format))
    throw invalidField('file', `a ${sample.format} sample is not accepted by model "${model.id}" (accepted: ${accepted.join(', ')})`);
  if (sample.durationSeconds < cloning.minSampleSeconds)
    throw invalidField('file', `the sample must be at least ${cloning.minSampleSeconds} seconds long`);
  const voice: ClonedVoice = await o.voices.create(accountId, model.id, sample, cloning);
  return { id: voice.id, model: voice.modelId };
}
