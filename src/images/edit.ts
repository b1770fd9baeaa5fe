import { badRequest } from '../http/errors';
import { wholeBody } from '../http/large-body';
import { unitCharge } from '../billing/pricing';
import type { ModelCall } from '../pipeline/model-call';
import { checkAspectRatio, checkPrompt } from './checks';
import { closestRatio, dimensionsFor } from './geometry';
import type { AdultClassifier } from './classifier';
import { readInputImage, type ImageFetch, type InputImage } from './input';
import { extraInputsCharge, imageCharge, pickQuality, pickResolution, requireOperation, upscaleCharge } from './model';
import { contentDisposition, MEDIA_TYPE, outputFormat, type OutputFormat } from './output';
import { runImageCall, type ImageJob } from './run';
import type { BackgroundRemoveRequest, EditImageRequest, MultiEditImageRequest, UpscaleImageRequest } from './schema';

/** Largest upscaled output, in pixels (the reference's 16,777,216). */
export const MAX_UPSCALE_PIXELS = 16_777_216;

/** What the upload routes use of the app: how URLs are fetched, and the operator's classifier. */
export interface ImageServices {
  fetching: ImageFetch;
  classify?: AdultClassifier;
}

/** The binary answer of an image route: the bytes with their Content-Type and Content-Disposition. */
function imageResponse(bytes: Uint8Array, format: OutputFormat, name: string): Response {
  return new Response(wholeBody(bytes), {
    headers: { 'content-type': MEDIA_TYPE[format], 'content-disposition': contentDisposition(name, format) },
  });
}

/** An input image as a multipart file for the upstream. */
function asFile(image: InputImage, name: string): File {
  return new File([image.bytes as Uint8Array<ArrayBuffer>], `${name}.${image.format === 'jpeg' ? 'jpg' : image.format}`, {
    type: `image/${image.format}`,
  });
}

/** Runs one `/images/edits` call and answers its image. */
async function answerEdit(call: ModelCall, job: Omit<ImageJob, 'path'>, name: string): Promise<Response> {
  const result = await runImageCall(call, { ...job, path: 'edits' });
  return imageResponse(result.images[0] as Uint8Array, job.finish.format, `${name}-${call.request.requestId}`);
}

/** The edit fields of /image/edit and /image/multi-edit, and what /images/edits maps its own to. */
export type EditFields = Omit<EditImageRequest, 'image' | 'modelId' | 'model'>;

/**
 * The upstream job of an edit or multi-edit: the prompt within the model's limit, the
 * resolution and aspect ratio the model supports (`auto`: closest to the first image),
 * quality on the models that honour it, the format (PNG for 1K, JPEG above), and one
 * `/images/edits` form with every image.
 */
export function editJob(call: ModelCall, req: EditFields, images: InputImage[], classify?: AdultClassifier): ImageJob {
  const spec = requireOperation(call.model, 'edit');
  const first = images[0] as InputImage;
  const resolution = pickResolution(spec, req.resolution);
  const ratio =
    !req.aspect_ratio || req.aspect_ratio === 'auto' ? closestRatio(first.width, first.height, spec.aspectRatios) : req.aspect_ratio;
  checkAspectRatio(spec, ratio);
  const quality = pickQuality(spec, req.quality);
  const format = outputFormat(req.output_format, resolution);
  const size = dimensionsFor(resolution, ratio, spec.widthHeightDivisor);
  const form = new FormData();
  if (images.length === 1) form.append('image', asFile(first, 'image'));
  else images.forEach((img, i) => form.append('image[]', asFile(img, `image-${i + 1}`)));
  form.append('prompt', req.prompt);
  form.append('n', '1');
  form.append('size', `${size.width}x${size.height}`);
  form.append('output_format', format);
  if (quality) form.append('quality', quality);
  const charge = imageCharge(call.model, spec, resolution, quality, 1);
  call.headers['x-svc-aspect-ratio'] = ratio;
  const surcharge = extraInputsCharge(call.model, spec, images.length);
  return { path: 'edits', body: form, charge, surcharge, finish: { format, size }, safeMode: req.safe_mode !== false, classify };
}

/** POST /image/edit: one image (file, base64 or URL). */
export async function editImage(req: EditImageRequest, call: ModelCall, services: ImageServices): Promise<Response> {
  requireOperation(call.model, 'edit');
  checkPrompt(call.model, req.prompt);
  const image = await readInputImage(req.image, ['image'], services.fetching);
  return answerEdit(call, editJob(call, req, [image], services.classify), 'edit');
}

/** POST /image/multi-edit: 1 to 3 images; the first is edited, the others guide it. */
export async function multiEditImage(req: MultiEditImageRequest, call: ModelCall, services: ImageServices): Promise<Response> {
  requireOperation(call.model, 'edit');
  checkPrompt(call.model, req.prompt);
  const images: InputImage[] = [];
  for (const [i, input] of req.images.entries()) images.push(await readInputImage(input, ['images', i], services.fetching));
  return answerEdit(call, editJob(call, req, images, services.classify), 'multi-edit');
}

/** POST /image/upscale: 2x or 4x, the output at most 16,777,216 pixels, as PNG. */
export async function upscaleImage(req: UpscaleImageRequest, call: ModelCall, { fetching }: ImageServices): Promise<Response> {
  const spec = requireOperation(call.model, 'upscale');
  const scale = req.scale ?? 2;
  if (scale !== 2 && scale !== 4) throw badRequest('scale: must be 2 or 4', [{ path: ['scale'], message: 'Expected 2 or 4' }]);
  const image = await readInputImage(req.image, ['image'], fetching);
  const size = { width: image.width * scale, height: image.height * scale };
  if (size.width * size.height > MAX_UPSCALE_PIXELS)
    throw badRequest(`image: upscaled ${scale}x it would have ${size.width * size.height} pixels; at most ${MAX_UPSCALE_PIXELS}`, [
      { path: ['image'], message: `At most ${Math.floor(MAX_UPSCALE_PIXELS / (scale * scale))} pixels for a ${scale}x upscale` },
    ]);
  const form = new FormData();
  form.append('image', asFile(image, 'image'));
  form.append('prompt', 'Upscale this image without changing its content');
  form.append('operation', 'upscale');
  form.append('scale', String(scale));
  form.append('creativity', String(Math.min(0.02, Math.max(0, req.creativity ?? 0.01))));
  form.append('size', `${size.width}x${size.height}`);
  form.append('output_format', 'png');
  const charge = upscaleCharge(call.model, spec, scale);
  return answerEdit(call, { body: form, charge, finish: { format: 'png', size }, safeMode: false }, 'upscale');
}

/** POST /image/background-remove: `image` or `image_url`, answered as a PNG with transparency. */
export async function removeBackground(req: BackgroundRemoveRequest, call: ModelCall, { fetching }: ImageServices): Promise<Response> {
  requireOperation(call.model, 'background-remove');
  const given = [req.image !== undefined, req.image_url !== undefined].filter(Boolean).length;
  if (given !== 1)
    throw badRequest('image: give exactly one of image and image_url', [
      { path: ['image'], message: 'Exactly one of image and image_url' },
    ]);
  const field = req.image !== undefined ? 'image' : 'image_url';
  const image = await readInputImage(req.image ?? req.image_url, [field], fetching);
  const form = new FormData();
  form.append('image', asFile(image, 'image'));
  form.append('prompt', 'Remove the background');
  form.append('operation', 'background-remove');
  form.append('output_format', 'png');
  const charge = unitCharge(call.model, 1, `${call.model.id}-background-remove`);
  const size = { width: image.width, height: image.height };
  return answerEdit(call, { body: form, charge, finish: { format: 'png', size }, safeMode: false }, 'background-remove');
}
