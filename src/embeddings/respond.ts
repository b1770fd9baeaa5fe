import { badRequest } from '../http/errors';
import type { ModelEntry } from '../models/catalog';
import type { EmbeddingResult } from '../../providers/types';
import type { EmbeddingRequest, EmbeddingResponse } from './schema';

/** Refuses a `dimensions` above the model's own vector size (400 naming the field). */
export function checkDimensions(req: EmbeddingRequest, model: ModelEntry): void {
  const max = model.config.dimensions;
  if (req.dimensions !== undefined && max !== undefined && req.dimensions > max) {
    const message = `dimensions: must be at most ${max} for model "${model.id}"`;
    throw badRequest(message, [{ path: ['dimensions'], message: `Must be at most ${max}` }]);
  }
}

/** A vector as base64 of its little-endian float32 bytes (what the OpenAI SDKs decode). */
export function base64Float32(vector: readonly number[]): string {
  const view = new DataView(new ArrayBuffer(vector.length * 4));
  for (let i = 0; i < vector.length; i++) view.setFloat32(i * 4, vector[i] as number, true);
  return Buffer.from(view.buffer).toString('base64');
}

/** The client's response: the vectors in the asked encoding, the svc model id and the counted usage. */
export function embeddingResponse(
  result: EmbeddingResult,
  req: EmbeddingRequest,
  model: ModelEntry,
  promptTokens: number,
): EmbeddingResponse {
  const base64 = req.encoding_format === 'base64';
  return {
    object: 'list',
    data: result.data.map((v, i) => ({
      object: 'embedding',
      index: typeof v.index === 'number' ? v.index : i,
      embedding: base64 ? base64Float32(v.embedding) : v.embedding,
    })),
    model: model.id,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}
