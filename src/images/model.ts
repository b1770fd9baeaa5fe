import type { ExtraCharge } from '../billing/meter';
import { microsToNumber, toMicros } from '../billing/money';
import { badRequest } from '../http/errors';
import type { ModelEntry } from '../models/catalog';
import { ASPECT_RATIOS, type ImageModelSpec, type ImageOperation } from '../models/image-spec';

/** Whether a catalog model is served by the image routes (image, upscale and inpaint types, or any model with an `image` spec). */
export function isImageModel(model: ModelEntry): boolean {
  return model.config.image !== undefined || model.type === 'image' || model.type === 'upscale' || model.type === 'inpaint';
}

/** A model's image spec with every default filled (config files get them from TypeBox, built-in models may omit some). */
export function imageSpecOf(model: ModelEntry): ImageModelSpec {
  const s = model.config.image;
  return {
    operation: s?.operation ?? (model.type === 'upscale' ? 'upscale' : model.type === 'inpaint' ? 'edit' : 'generate'),
    resolutions: s?.resolutions ?? ['1K'],
    defaultResolution: s?.defaultResolution,
    aspectRatios: s?.aspectRatios ?? [...ASPECT_RATIOS],
    defaultAspectRatio: s?.defaultAspectRatio ?? '1:1',
    qualities: s?.qualities,
    defaultQuality: s?.defaultQuality,
    steps: s?.steps ?? { default: 8, max: 30 },
    widthHeightDivisor: s?.widthHeightDivisor ?? 16,
    pricing: s?.pricing ?? {},
  };
}

/** The resolution a request gets: its own (checked against the model's list) or the model's default. */
export function pickResolution(spec: ImageModelSpec, asked: string | undefined, field = 'resolution'): string {
  const resolution = asked ?? spec.defaultResolution ?? (spec.resolutions[0] as string);
  if (!spec.resolutions.includes(resolution))
    throw badRequest(`${field}: "${resolution}" is not supported by this model (supported: ${spec.resolutions.join(', ')})`, [
      { path: [field], message: `Expected one of: ${spec.resolutions.join(', ')}` },
    ]);
  return resolution;
}

/** The quality tier billed and sent: the request's on a model that honours quality, else none (ignored). */
export function pickQuality(spec: ImageModelSpec, asked: string | undefined): string | undefined {
  if (!spec.qualities) return undefined;
  return asked ?? spec.defaultQuality ?? spec.qualities[0];
}

/** Checks that the model named does the route's operation (an edit model on /image/edit, ...). */
export function requireOperation(model: ModelEntry, operation: ImageOperation, field = 'model'): ImageModelSpec {
  const spec = imageSpecOf(model);
  if (spec.operation !== operation)
    throw badRequest(`${field}: "${model.id}" is a ${spec.operation} model; this endpoint takes a ${operation} model`, [
      { path: [field], message: `Expected a ${operation} model` },
    ]);
  return spec;
}

/** Micro-USD per image at `resolution` and `quality`: the tier price, else the resolution price, else the flat price. */
export function imagePriceMicros(model: ModelEntry, spec: ImageModelSpec, resolution: string, quality: string | undefined): number {
  const tier = quality ? spec.pricing.quality?.[resolution]?.[quality as 'low' | 'medium' | 'high'] : undefined;
  if (tier !== undefined) return toMicros(tier);
  const byResolution = spec.pricing.resolutions?.[resolution];
  return byResolution !== undefined ? toMicros(byResolution) : model.prices.perUnit;
}

/** The line item of `count` images of one kind; the sku names the resolution and tier so the ledger reads as a bill. */
export function imageCharge(
  model: ModelEntry,
  spec: ImageModelSpec,
  resolution: string,
  quality: string | undefined,
  count: number,
): ExtraCharge {
  const sku = `${model.id}-image-${resolution.toLowerCase()}${quality ? `-${quality}` : ''}`;
  return { sku, units: count, unitPriceMicros: imagePriceMicros(model, spec, resolution, quality) };
}

/** The line item of the input images beyond those the edit price includes (multi-edit), or none. */
export function extraInputsCharge(model: ModelEntry, spec: ImageModelSpec, inputs: number): ExtraCharge | undefined {
  const p = spec.pricing.inputImages;
  const extra = p ? inputs - p.included : 0;
  if (!p || extra <= 0) return undefined;
  return { sku: `${model.id}-additional-input-image`, units: extra, unitPriceMicros: toMicros(p.additional) };
}

/** The line item of one upscale at `scale` (the model's "2x"/"4x" price, else its flat price). */
export function upscaleCharge(model: ModelEntry, spec: ImageModelSpec, scale: number): ExtraCharge {
  const price = spec.pricing.upscale?.[`${scale}x`];
  return { sku: `${model.id}-upscale-${scale}x`, units: 1, unitPriceMicros: price !== undefined ? toMicros(price) : model.prices.perUnit };
}

const usdDiem = (micros: number) => ({ usd: microsToNumber(micros), diem: microsToNumber(micros) });
const priced = (v: string | number) => usdDiem(toMicros(v));

/** `model_spec.pricing` of an image, edit or upscale model (reference: generation or inpaint, resolutions, quality, upscale). */
export function presentImagePricing(model: ModelEntry): Record<string, unknown> {
  const spec = imageSpecOf(model);
  const p = spec.pricing;
  const flat = usdDiem(model.prices.perUnit);
  const out: Record<string, unknown> = spec.operation === 'edit' ? { inpaint: flat } : { generation: flat };
  if (p.resolutions) out.resolutions = Object.fromEntries(Object.entries(p.resolutions).map(([k, v]) => [k, priced(v)]));
  if (p.quality)
    out.quality = Object.fromEntries(
      Object.entries(p.quality).map(([res, tiers]) => [
        res,
        { low: priced(tiers.low), medium: priced(tiers.medium), high: priced(tiers.high) },
      ]),
    );
  if (p.inputImages) out.inputImages = { included: p.inputImages.included, additional: priced(p.inputImages.additional) };
  if (spec.operation === 'upscale') {
    const scale = (key: string) => (p.upscale?.[key] !== undefined ? priced(p.upscale[key] as string | number) : flat);
    out.upscale = { '2x': scale('2x'), '4x': scale('4x') };
  }
  return out;
}

/** `model_spec.constraints` of an image model (the reference's Image / Inpaint constraint shapes). */
export function presentImageConstraints(model: ModelEntry): Record<string, unknown> {
  const spec = imageSpecOf(model);
  return {
    promptCharacterLimit: model.config.promptCharacterLimit ?? 32768,
    steps: spec.steps,
    widthHeightDivisor: spec.widthHeightDivisor,
    aspectRatios: spec.aspectRatios,
    defaultAspectRatio: spec.defaultAspectRatio,
    resolutions: spec.resolutions,
    defaultResolution: spec.defaultResolution ?? spec.resolutions[0],
    ...(spec.qualities ? { qualities: spec.qualities, defaultQuality: spec.defaultQuality ?? spec.qualities[0] } : {}),
    ...(spec.operation === 'edit' ? { combineImages: true, maxInputImages: 3 } : {}),
  };
}
