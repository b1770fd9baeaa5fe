/**
 * The bytes the bench upstream answers with, precomputed: a JSON chat.completion and SSE
 * streams of N content chunks (a short `<think>` block first, so strip_thinking has work),
 * a usage chunk and `[DONE]`. Shared by the upstream process and the in-process harness.
 */
const encoder = new TextEncoder();
const created = Math.floor(Date.now() / 1000);

const frame = (obj: unknown) => encoder.encode(`data: ${JSON.stringify(obj)}\n\n`);
const chunkOf = (content: string, finish: string | null = null) => ({
  id: 'chatcmpl-bench',
  object: 'chat.completion.chunk',
  created,
  model: 'bench-upstream',
  choices: [{ index: 0, delta: { content }, finish_reason: finish }],
});

/** The content of chunk i: a think block over the first chunks, then words. */
export function contentAt(i: number, total: number) {
  const thinkEnd = Math.min(5, Math.floor(total / 4));
  if (thinkEnd < 2) return 'word ';
  if (i === 0) return '<think>';
  if (i < thinkEnd) return 'hmm ';
  if (i === thinkEnd) return '</think>';
  return 'word ';
}

/** The upstream's usage report (the same for every answer). */
export const USAGE = { prompt_tokens: 12, completion_tokens: 50, total_tokens: 62 };
export const USAGE_FRAME = frame({ ...chunkOf(''), choices: [], usage: USAGE });
export const DONE_FRAME = encoder.encode('data: [DONE]\n\n');

/** One SSE frame per content chunk. */
export function contentFrames(total: number): Uint8Array[] {
  return Array.from({ length: total }, (_, i) => frame(chunkOf(contentAt(i, total), i === total - 1 ? 'stop' : null)));
}

export function concat(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A whole stream in one buffer: `chunks` content frames, the usage frame (unless told not to) and [DONE]. */
export function sseStream(chunks: number, withUsage = true): Uint8Array<ArrayBuffer> {
  return concat([...contentFrames(chunks), ...(withUsage ? [USAGE_FRAME] : []), DONE_FRAME]);
}

/** Dimension of the bench embedding model's vectors. */
export const EMBEDDING_DIMENSIONS = 1024;

/**
 * An `/embeddings` answer: one vector of EMBEDDING_DIMENSIONS floats, as an OpenAI-compatible
 * server sends it, or as base64 of little-endian float32 (an `encoding_format: base64` request).
 */
export function embeddingsAnswer(encoding: 'float' | 'base64' = 'float'): string {
  const floats = Array.from({ length: EMBEDDING_DIMENSIONS }, (_, i) => Math.sin(i + 1) / 32);
  const embedding = encoding === 'float' ? floats : Buffer.from(new Float32Array(floats).buffer).toString('base64');
  return JSON.stringify({
    object: 'list',
    data: [{ object: 'embedding', index: 0, embedding }],
    model: 'bench-embed-upstream',
    usage: { prompt_tokens: 4, total_tokens: 4 },
  });
}

/** A non-streaming answer of `words` words (50: the bench's JSON phase). */
export function jsonCompletion(words = 50): string {
  return JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created,
    model: 'bench-upstream',
    choices: [{ index: 0, message: { role: 'assistant', content: 'word '.repeat(words) }, finish_reason: 'stop', logprobs: null }],
    usage: USAGE,
  });
}
