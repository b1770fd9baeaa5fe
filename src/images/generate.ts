import { badRequest } from '../http/errors';
import { wholeBody } from '../http/large-body';
import type { ModelCall } from '../pipeline/model-call';
import { checkAspectRatio, checkNoNul, checkPrompt } from './checks';
import { dimensionsFor, parseSize } from './geometry';
import { imageCharge, pickQuality, pickResolution, requireOperation } from './model';
import { contentDisposition, MEDIA_TYPE, openAIImagesAnswer, outputFormat, type OutputFormat } from './output';
import { runImageCall } from './run';
import type { AdultClassifier } from './classifier';
import type { GenerateImageRequest, SimpleGenerateImageRequest } from './schema';
import { IMAGE_STYLES, styledPrompt } from './styles';

/** The size of a generate request: resolution and aspect ratio when either is given, else width x height (each rounded to the divisor). */
function generateSize(req: GenerateImageRequest, spec: ReturnType<typeof requireOperation>, resolution: string) {
  if (req.resolution !== undefined || req.aspect_ratio !== undefined) {
    const ratio = req.aspect_ratio ?? spec.defaultAspectRatio;
    checkAspectRatio(spec, ratio);
    return dimensionsFor(resolution, ratio, spec.widthHeightDivisor);
  }
  const d = spec.widthHeightDivisor;
  const round = (v: number) => Math.max(d, Math.round(v / d) * d);
  return { width: round(req.width ?? 1024), height: round(req.height ?? 1024) };
}

/** The checks of a generate request that need its model (the schema has done the rest). */
function checkGenerate(req: GenerateImageRequest, call: ModelCall) {
  const spec = requireOperation(call.model, 'generate');
  checkPrompt(call.model, req.prompt);
  if (req.negative_prompt !== undefined) checkNoNul(req.negative_prompt, 'negative_prompt');
  if (req.steps !== undefined && req.steps > spec.steps.max)
    throw badRequest(`steps: at most ${spec.steps.max} for this model`, [{ path: ['steps'], message: `At most ${spec.steps.max}` }]);
  if (req.style_preset !== undefined && !(req.style_preset in IMAGE_STYLES))
    throw badRequest(`style_preset: "${req.style_preset}" is not a style; GET /image/styles lists them`, [
      { path: ['style_preset'], message: 'Expected one of GET /image/styles' },
    ]);
  if (req.return_binary && (req.variants ?? 1) > 1)
    throw badRequest('variants: more than one image needs return_binary=false', [
      { path: ['variants'], message: 'Only with return_binary=false' },
    ]);
  return spec;
}

/**
 * POST /image/generate: `variants` images at the model's price for the resolution and
 * quality tier (the default tier when none is given), answered as the reference's JSON
 * `{id, images, request, timing}` or, with `return_binary`, as the image itself.
 */
export async function generateImage(req: GenerateImageRequest, call: ModelCall, classify?: AdultClassifier): Promise<unknown> {
  const spec = checkGenerate(req, call);
  const resolution = pickResolution(spec, req.resolution);
  const quality = pickQuality(spec, req.quality);
  const size = generateSize(req, spec, resolution);
  const format: OutputFormat = outputFormat(req.format ?? 'webp', resolution);
  const n = req.return_binary ? 1 : (req.variants ?? 1);
  const started = performance.now();
  const body = {
    prompt: styledPrompt(req.prompt, req.style_preset),
    ...(req.negative_prompt ? { negative_prompt: req.negative_prompt } : {}),
    n,
    size: `${size.width}x${size.height}`,
    output_format: format,
    response_format: 'b64_json',
    ...(quality ? { quality } : {}),
    ...(req.seed !== undefined ? { seed: req.seed } : {}),
    ...(req.steps !== undefined ? { steps: req.steps } : {}),
    ...(req.cfg_scale !== undefined ? { cfg_scale: req.cfg_scale } : {}),
  };
  const charge = imageCharge(call.model, spec, resolution, quality, n);
  const result = await runImageCall(call, {
    path: 'generations',
    body,
    charge,
    finish: { format, size },
    safeMode: req.safe_mode !== false,
    classify,
  });
  const inference = Math.round(performance.now() - started);
  if (req.return_binary) {
    const id = `generate-${call.request.requestId}`;
    return new Response(wholeBody(result.images[0] as Uint8Array), {
      headers: { 'content-type': MEDIA_TYPE[format], 'content-disposition': contentDisposition(id, format) },
    });
  }
  return {
    id: `generate-${call.request.requestId}`,
    images: result.images.map((img) => Buffer.from(img).toString('base64')),
    request: { ...req, format, resolution, ...(quality ? { quality } : {}), width: size.width, height: size.height },
    timing: {
      inferenceDuration: inference,
      inferencePreprocessingTime: 0,
      inferenceQueueTime: 0,
      total: Math.round(performance.now() - call.request.startedAt),
    },
  };
}

/**
 * POST /images/generations (OpenAI's images.generate): one image at the model's default
 * resolution shaped to `size`, `{created, data: [{b64_json}]}` or a data URL.
 */
export async function simpleGenerateImage(req: SimpleGenerateImageRequest, call: ModelCall, classify?: AdultClassifier): Promise<unknown> {
  const spec = requireOperation(call.model, 'generate');
  checkPrompt(call.model, req.prompt);
  const resolution = pickResolution(spec, undefined);
  const asked = req.quality === 'low' || req.quality === 'medium' || req.quality === 'high' ? req.quality : undefined;
  const quality = pickQuality(spec, asked);
  const size = parseSize(req.size) ?? dimensionsFor(resolution, spec.defaultAspectRatio, spec.widthHeightDivisor);
  const format: OutputFormat = req.output_format ?? 'png';
  const body = {
    prompt: req.prompt,
    n: 1,
    size: `${size.width}x${size.height}`,
    output_format: format,
    response_format: 'b64_json',
    ...(quality ? { quality } : {}),
  };
  const charge = imageCharge(call.model, spec, resolution, quality, 1);
  const result = await runImageCall(call, {
    path: 'generations',
    body,
    charge,
    finish: { format, size },
    safeMode: req.moderation !== 'low',
    classify,
  });
  return openAIImagesAnswer(result.images, format, req.response_format);
}
