import { badRequest } from '../http/errors';
import type { ModelCall } from '../pipeline/model-call';
import { checkPrompt } from './checks';
import { editJob, type EditFields, type ImageServices } from './edit';
import { closestRatio, parseSize } from './geometry';
import { readInputImage, type InputImage } from './input';
import { requireOperation } from './model';
import { openAIImagesAnswer } from './output';
import { runImageCall } from './run';
import type { OpenAIEditImageRequest } from './schema';

/** Most images one edit takes (the first is edited, the others guide it), as /image/multi-edit. */
const MAX_EDIT_IMAGES = 3;

/** The images of the body: one upload or string, or a list (`image[]` uploads, a JSON array). */
function inputsOf(image: unknown): unknown[] {
  const inputs = Array.isArray(image) ? image : [image];
  if (inputs.length < 1 || inputs.length > MAX_EDIT_IMAGES)
    throw badRequest(`image: give 1 to ${MAX_EDIT_IMAGES} images (got ${inputs.length})`, [
      { path: ['image'], message: `Expected 1 to ${MAX_EDIT_IMAGES} images` },
    ]);
  return inputs;
}

/**
 * POST /images/edits, the `openai` SDK's `images.edit`: the same edit job as /image/edit and
 * /image/multi-edit (images, prompt, model limits, charge), with OpenAI's fields mapped to
 * svc's (size to the closest aspect ratio, moderation to safe mode) and OpenAI's answer
 * `{created, data: [{b64_json}]}`.
 */
export async function openAIEditImage(req: OpenAIEditImageRequest, call: ModelCall, services: ImageServices) {
  const spec = requireOperation(call.model, 'edit');
  checkPrompt(call.model, req.prompt);
  const inputs = inputsOf(req.image);
  const images: InputImage[] = [];
  for (const [i, input] of inputs.entries())
    images.push(await readInputImage(input, inputs.length > 1 ? ['image', i] : ['image'], services.fetching));
  const size = parseSize(req.size);
  const quality = req.quality === 'low' || req.quality === 'medium' || req.quality === 'high' ? req.quality : undefined;
  const fields: EditFields = {
    prompt: req.prompt,
    aspect_ratio: (size ? closestRatio(size.width, size.height, spec.aspectRatios) : 'auto') as EditFields['aspect_ratio'],
    quality,
    output_format: req.output_format,
    safe_mode: req.moderation !== 'low',
  };
  const job = editJob(call, fields, images, services.classify);
  const result = await runImageCall(call, job);
  return openAIImagesAnswer(result.images, job.finish.format, req.response_format);
}
