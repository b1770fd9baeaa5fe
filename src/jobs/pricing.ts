import type { ExtraCharge } from '../billing/meter';
import { toMicros } from '../billing/money';
import { invalidField } from '../http/errors';
import type { ModelEntry } from '../models/catalog';
import type { MusicModelSpec, VideoModelSpec } from '../models/media-spec';

/** The inputs a video price depends on, as the quote and the queue requests carry them. */
export interface VideoPriceInput {
  duration: string;
  resolution?: string;
  aspect_ratio?: string;
  upscale_factor?: number;
  audio?: boolean;
}

/** The inputs an audio job's price depends on. */
export interface AudioPriceInput {
  seconds?: number;
  characters?: number;
}

/** Micro-USD `micros` scaled by an integer percentage, rounded up (never a float). */
const scaled = (micros: number, percent: number | undefined) => (percent === undefined ? micros : Math.ceil((micros * percent) / 100));

/** The seconds a duration value stands for: "5s" is 5, "1 gen" and "Auto" the model's default. */
export function videoSeconds(spec: VideoModelSpec, duration: string): number {
  const match = /^(\d+)s$/.exec(duration);
  return match ? Number(match[1]) : spec.defaultSeconds;
}

/** The resolution a video request gets: its own, else the model's default, else none (a model without resolutions). */
export const videoResolution = (spec: VideoModelSpec, asked?: string) => asked ?? spec.defaultResolution ?? spec.resolutions[0];

/**
 * The line items of one video job: seconds at the resolution's per-second price, plus the
 * audio track's seconds when audio is on, each scaled by the aspect-ratio and upscale
 * percentages. The one pricing function of /video/quote, the reservation and the charge,
 * so the price quoted is the price charged. Validation (the model offers these values) runs first.
 */
export function videoCharges(model: ModelEntry, spec: VideoModelSpec, input: VideoPriceInput): ExtraCharge[] {
  const seconds = videoSeconds(spec, input.duration);
  const resolution = videoResolution(spec, input.resolution);
  const table = spec.pricing.perSecond;
  const base = resolution && table?.[resolution] !== undefined ? toMicros(table[resolution]) : model.prices.perUnit;
  const ratio = input.aspect_ratio ?? spec.defaultAspectRatio;
  const factor = spec.upscaleFactors ? (input.upscale_factor ?? 2) : undefined;
  const adjust = (micros: number) =>
    scaled(
      scaled(micros, ratio ? spec.pricing.aspectRatio?.[ratio] : undefined),
      factor ? spec.pricing.upscaleFactor?.[String(factor)] : undefined,
    );
  const charges: ExtraCharge[] = [
    { sku: `${model.id}-video-${resolution ?? 'default'}-second`, units: seconds, unitPriceMicros: adjust(base) },
  ];
  if (spec.audio && input.audio !== false && spec.pricing.audioPerSecond !== undefined)
    charges.push({ sku: `${model.id}-video-audio-second`, units: seconds, unitPriceMicros: adjust(toMicros(spec.pricing.audioPerSecond)) });
  return charges;
}

/**
 * The line item of one audio job: per thousand characters for models priced so (the
 * `characters` are required then), else per second at the model's `pricing.perUnit`, for
 * the seconds asked or the model's default. Shared by /audio/quote and /audio/queue.
 */
export function audioCharges(model: ModelEntry, spec: MusicModelSpec, input: AudioPriceInput): ExtraCharge[] {
  if (spec.perThousandCharacters !== undefined) {
    if (input.characters === undefined)
      throw invalidField('character_count', `is required for "${model.id}" (priced per thousand characters)`);
    // Whole thousands, rounded up: 1 to 1,000 characters cost one unit.
    const units = Math.ceil(input.characters / 1000);
    return [{ sku: `${model.id}-audio-kchar`, units, unitPriceMicros: toMicros(spec.perThousandCharacters) }];
  }
  const seconds = input.seconds ?? spec.defaultSeconds;
  return [{ sku: `${model.id}-audio-second`, units: seconds, unitPriceMicros: model.prices.perUnit }];
}

/** The total of line items in micro-USD, each rounded up as the ledger does. */
export function chargesMicros(charges: readonly ExtraCharge[]): number {
  let sum = 0;
  for (const c of charges) sum += Math.ceil(c.units * c.unitPriceMicros);
  return sum;
}
