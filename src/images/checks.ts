import { badRequest } from '../http/errors';
import type { ModelEntry } from '../models/catalog';
import type { ImageModelSpec } from '../models/image-spec';

/** 400 unless the prompt is within the model's `promptCharacterLimit` (the schema already bounds it to 1..32768). */
export function checkPrompt(model: ModelEntry, prompt: string, field = 'prompt'): void {
  const limit = model.config.promptCharacterLimit;
  if (limit !== undefined && prompt.length > limit)
    throw badRequest(`${field}: ${prompt.length} characters; ${model.id} takes at most ${limit}`, [
      { path: [field], message: `At most ${limit} characters for this model` },
    ]);
}

/** 400 unless the aspect ratio is one the model supports. */
export function checkAspectRatio(spec: ImageModelSpec, ratio: string): void {
  if (!spec.aspectRatios.includes(ratio))
    throw badRequest(`aspect_ratio: "${ratio}" is not supported by this model (supported: ${spec.aspectRatios.join(', ')})`, [
      { path: ['aspect_ratio'], message: `Expected one of: ${spec.aspectRatios.join(', ')}` },
    ]);
}
