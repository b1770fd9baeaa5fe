import { badRequest } from '../http/errors';
import type { ModelEntry } from '../models/catalog';
import type { EmbeddingResult } from '../../providers/types';
import type { EmbeddingRequest } from './schema';

/** Refuses a `dimensions` above the model's own vector size (400 naming the field). */
export function checkDimensions(req: EmbeddingRequest, model: ModelEntry): void {
  const max = model.config.dimensions;
  if (req.dimensions !== undefined && max !== undefined && req.dimensions > max) {
    const message = `dimensions: must be at most ${max} for model "${model.id}"`;
    throw badRequest(message, [{ path: ['dimensions'], message: `Must be at most ${max}` }]);
  }
}

/**
 * The client's response as JSON text (an EmbeddingResponse): OpenAI's item shape and order,
 * the svc model id and the counted usage around each vector's text, which the provider
 * already holds in the asked encoding (the upstream's own bytes when it answered in it), so
 * no vector is parsed or serialised again here.
 */
export function embeddingResponse(result: EmbeddingResult, model: ModelEntry, promptTokens: number): string {
  let data = '';
  for (const [i, vector] of result.data.entries())
    data += `${i === 0 ? '' : ','}{"object":"embedding","index":${vector.index},"embedding":${vector.json}}`;
  const usage = `{"prompt_tokens":${promptTokens},"total_tokens":${promptTokens}}`;
  return `{"object":"list","data":[${data}],"model":${JSON.stringify(model.id)},"usage":${usage}}`;
}
