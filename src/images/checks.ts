import { badRequest } from '../http/errors';
import type { ModelEntry } from '../models/catalog';
import type { ImageModelSpec } from '../models/image-spec';

/**
 * 400 when a text field sent upstream holds a NUL: no image upstream renders one (the
 * simulator's SVG cannot hold it), and its failure was a 502 "Please retry" for a request
 * that can never pass.
 */
export function checkNoNul(text: string, field: string): void {
  if (text.includes('\u0000'))
    throw badRequest(`${field}: must not contain NUL (\\u0000) characters`, [
      { path: [field], message: 'NUL (\\u0000) characters are not allowed' },
    ]);
}

/** 400 unless the prompt holds no NUL and is within the model's `promptCharacterLimit` (the schema already bounds it to 1..32768). */
export function checkPrompt(model: ModelEntry, prompt: string, field = 'prompt'): void {
  checkNoNul(prompt, field);
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
