import type { ContentEmbedding } from '@google/genai';
import { base64Float32 } from '../../src/stream/float32';
import type { EmbeddingResult, UpstreamEmbeddingRequest } from '../types';
import { unsupported } from '../translate/request';
import { upstreamUnavailable } from '../errors';

/** An `embedContent` or `batchEmbedContents` REST body, and the path it goes to. */
export interface EmbedCall {
  method: 'embedContent' | 'batchEmbedContents';
  body: Record<string, unknown>;
}

/**
 * An embeddings request as Gemini's: one text is an `embedContent` call, a list a
 * `batchEmbedContents` call; `dimensions` is `outputDimensionality`. Token-id input has no
 * Gemini equivalent: a 400 naming `input`.
 */
export function embedCall(req: UpstreamEmbeddingRequest, model: string): EmbedCall {
  const dims = req.dimensions ? { outputDimensionality: req.dimensions } : {};
  if (typeof req.input === 'string')
    return { method: 'embedContent', body: { content: { role: 'user', parts: [{ text: req.input }] }, ...dims } };
  if (!req.input.every((x) => typeof x === 'string'))
    throw unsupported(['input'], "must be text (a string or a list of strings) with this model's provider");
  const requests = (req.input as string[]).map((text) => ({
    model: `models/${model}`,
    content: { role: 'user', parts: [{ text }] },
    ...dims,
  }));
  return { method: 'batchEmbedContents', body: { requests } };
}

const isVector = (v: ContentEmbedding | undefined): v is { values: number[] } =>
  Array.isArray(v?.values) && v.values.length > 0 && v.values.every((x) => typeof x === 'number' && Number.isFinite(x));

/** Gemini's vectors in the request's encoding; Gemini does not count tokens here, so svc counts the input itself. */
export function embeddingResult(
  answer: { embedding?: ContentEmbedding; embeddings?: ContentEmbedding[] },
  req: UpstreamEmbeddingRequest,
): EmbeddingResult {
  const vectors = answer?.embeddings ?? (answer?.embedding ? [answer.embedding] : []);
  const expected = typeof req.input === 'string' ? 1 : req.input.length;
  if (vectors.length !== expected || !vectors.every(isVector)) throw upstreamUnavailable('the upstream sent a broken embeddings answer');
  return {
    data: vectors.map((v, index) => ({
      index,
      json: req.encoding_format === 'base64' ? `"${base64Float32(v.values)}"` : JSON.stringify(v.values),
    })),
  };
}
