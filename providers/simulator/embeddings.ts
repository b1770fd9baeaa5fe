import { base64Float32 } from '../../src/stream/float32';
import { embeddingInputTokens } from '../../src/pipeline/tokens';
import type { EmbeddingVector, ProviderCalls, UpstreamEmbeddingRequest } from '../types';

/** Dimension of a simulated embedding when neither the request nor the model sets one. */
export const DEFAULT_SIMULATED_DIMENSIONS = 256;

/** A 32-bit PRNG (mulberry32): small, fast and the same on every platform. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A deterministic unit vector for one input: the same text (or token array) and model always
 * give the same vector, different inputs almost orthogonal ones, so similarity search can be
 * tried end to end without a model.
 */
export function simulatedVector(model: string, input: string | readonly number[], dimensions: number): number[] {
  const key = typeof input === 'string' ? input : input.join(',');
  const next = mulberry32(Number(Bun.hash.wyhash(`${model}\u0000${key}`) & 0xffffffffn));
  const v = new Array<number>(dimensions);
  let norm = 0;
  for (let i = 0; i < dimensions; i++) {
    // Box-Muller: normal components make the direction uniform on the sphere.
    const x = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
    v[i] = x;
    norm += x * x;
  }
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < dimensions; i++) v[i] = (v[i] as number) / norm;
  return v;
}

/** The inputs of a request as a list: one string or token array per vector. */
function inputsOf(input: UpstreamEmbeddingRequest['input']): (string | number[])[] {
  if (typeof input === 'string') return [input];
  if (input.length > 0 && typeof input[0] === 'number') return [input as number[]];
  return input as (string | number[])[];
}

/** A vector as JSON text in `encoding`. */
function encoded(vector: number[], encoding: UpstreamEmbeddingRequest['encoding_format']): string {
  return encoding === 'base64' ? `"${base64Float32(vector)}"` : JSON.stringify(vector);
}

/** The simulator's embeddings: deterministic unit vectors of the requested or configured dimension. */
export function simulatedEmbed(o: { dimensionsOf: (model: string) => number | undefined }): ProviderCalls['embed'] {
  return async function embed(req, call) {
    const dimensions = req.dimensions ?? o.dimensionsOf(call.upstreamModel) ?? DEFAULT_SIMULATED_DIMENSIONS;
    const data: EmbeddingVector[] = inputsOf(req.input).map((input, index) => ({
      index,
      encoding: 'float',
      json: encoded(simulatedVector(call.upstreamModel, input, dimensions), req.encoding_format),
    }));
    const tokens = embeddingInputTokens(req.input);
    return { data, usage: { prompt_tokens: tokens } };
  };
}
