import { DEFAULT_MAX_COMPLETION_TOKENS } from '../../src/stream/max-tokens';
import { DEFAULT_MAX_RESPONSE_BYTES, type ResponseLimits } from '../../src/models/provider-config';
import { responseJsonUpTo } from '../../src/net/limited-body';
import type { UpstreamChatRequest } from '../../src/stream/wire';
import { upstreamCall } from '../openai-compatible/upstream-call';
import { translatedStream } from '../translate/stream';
import type { CallOptions, EmbeddingResult, Provider, ProviderChatResult, UpstreamEmbeddingRequest } from '../types';
import { completionOf, type GenerateContentAnswer } from './answer';
import { embedCall, embeddingResult } from './embed';
import { generateContentBody } from './request';
import { geminiStream } from './stream';

/** Where a Gemini upstream is and how to call it (config `kind: gemini`). */
export interface GeminiOptions {
  id: string;
  /** https://generativelanguage.googleapis.com/v1beta unless the config names a proxy or a fixture. */
  baseURL?: string;
  apiKey?: string;
  /** `maxOutputTokens` when the request sets none. */
  defaultMaxTokens?: number;
  /** Largest JSON answer read per capability, in bytes. */
  maxResponseBytes?: Partial<ResponseLimits>;
  fetch: typeof fetch;
}

/**
 * A Google Gemini upstream (the Generative Language REST API) with the `chat` and `embed`
 * capabilities: chat is `models/{model}:generateContent`, or `:streamGenerateContent?alt=sse`
 * translated chunk by chunk (stream.ts); embeddings are `:embedContent` or
 * `:batchEmbedContents`. The key goes in `x-goog-api-key`, never in the URL (which logs show).
 */
export function gemini(o: GeminiOptions): Provider {
  const base = (o.baseURL ?? 'https://generativelanguage.googleapis.com/v1beta').replace(/\/+$/, '');
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(o.apiKey ? { 'x-goog-api-key': o.apiKey } : {}) };
  const limits = { ...DEFAULT_MAX_RESPONSE_BYTES, ...o.maxResponseBytes };
  const defaultMaxTokens = o.defaultMaxTokens ?? DEFAULT_MAX_COMPLETION_TOKENS;
  const urlOf = (model: string, method: string) => `${base}/models/${encodeURIComponent(model)}:${method}`;

  return {
    id: o.id,
    simulated: false,
    capabilities: new Set(['chat', 'embed']),
    chat(req: UpstreamChatRequest, call: CallOptions): Promise<ProviderChatResult> {
      const body = JSON.stringify(generateContentBody(req, defaultMaxTokens));
      const created = Math.floor(Date.now() / 1000);
      const id = `chatcmpl-${crypto.randomUUID()}`;
      const url = req.stream
        ? `${urlOf(call.upstreamModel, 'streamGenerateContent')}?alt=sse`
        : urlOf(call.upstreamModel, 'generateContent');
      return upstreamCall(o.fetch, url, headers, body, call, async (res, attempt) => {
        if (req.stream)
          return { kind: 'stream', body: await translatedStream(res, geminiStream(created, id), attempt.abort, () => attempt.end()) };
        const answer = await responseJsonUpTo<GenerateContentAnswer>(res, limits.chat);
        attempt.end();
        return { kind: 'json', body: completionOf(answer, created, id) };
      });
    },
    embed(req: UpstreamEmbeddingRequest, call: CallOptions): Promise<EmbeddingResult> {
      const { method, body } = embedCall(req, call.upstreamModel);
      return upstreamCall(o.fetch, urlOf(call.upstreamModel, method), headers, JSON.stringify(body), call, async (res, attempt) => {
        const answer = await responseJsonUpTo<Parameters<typeof embeddingResult>[0]>(res, limits.embed);
        attempt.end();
        return embeddingResult(answer, req);
      });
    },
  };
}
