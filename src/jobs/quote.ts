import { microsToNumber } from '../billing/money';
import type { ModelCatalog } from '../models/catalog';
import { resolveModel } from '../pipeline/model-call';
import { audioCharges, chargesMicros, videoCharges } from './pricing';
import type { QuoteAudioRequest, QuoteVideoRequest } from './schema';
import { audioSeconds, checkAudioSeconds, checkVideoOptions, musicSpecOf, videoSpecOf } from './validate';

/** POST /video/quote: the USD price of a video job, from the same function that reserves and charges it. */
export function quoteVideo(models: ModelCatalog, req: QuoteVideoRequest): { quote: number } {
  const { model } = resolveModel(models, req.model, ['video']);
  const spec = videoSpecOf(model);
  checkVideoOptions(model, spec, req);
  return { quote: microsToNumber(chargesMicros(videoCharges(model, spec, req))) };
}

/** POST /audio/quote: the USD price of an audio job for its seconds or characters, as /audio/queue charges it. */
export function quoteAudio(models: ModelCatalog, req: QuoteAudioRequest): { quote: number } {
  const { model } = resolveModel(models, req.model, ['music']);
  const spec = musicSpecOf(model);
  const seconds = audioSeconds(req.duration_seconds);
  checkAudioSeconds(model, spec, seconds);
  return { quote: microsToNumber(chargesMicros(audioCharges(model, spec, { seconds, characters: req.character_count }))) };
}
