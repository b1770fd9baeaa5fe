import type { Message } from '@anthropic-ai/sdk/resources/messages';
import { DEFAULT_MAX_COMPLETION_TOKENS } from '../../src/stream/max-tokens';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../../src/models/provider-config';
import { responseJsonUpTo } from '../../src/net/limited-body';
import type { UpstreamChatRequest } from '../../src/stream/wire';
import { upstreamCall } from '../openai-compatible/upstream-call';
import { translatedStream } from '../translate/stream';
import type { CallOptions, Provider, ProviderChatResult } from '../types';
import { completionOf } from './answer';
import { messagesRequest, takesSampling } from './request';
import { anthropicStream } from './stream';

/** The Messages API version svc speaks (the official SDK's, whose types check svc's requests); config `options.version` overrides it. */
export const ANTHROPIC_VERSION = '2026-10-21';

/** Where an Anthropic upstream is and how to call it (config `kind: anthropic`). */
export interface AnthropicOptions {
  id: string;
  /** https://api.anthropic.com unless the config names a proxy or a fixture. */
  baseURL?: string;
  apiKey?: string;
  /** The `anthropic-version` header. */
  version?: string;
  /** `max_tokens` when the request sets none (Anthropic requires one). */
  defaultMaxTokens?: number;
  /** Largest JSON answer read, in bytes. */
  maxResponseBytes?: number;
  fetch: typeof fetch;
}

/**
 * An Anthropic Messages upstream with the `chat` capability: each chat-completions request
 * is translated to `POST /v1/messages` (request.ts), and the answer back, a JSON message or
 * the event stream translated chunk by chunk (stream.ts). Errors before the first byte are
 * the router's UpstreamFailures: 429 and 529 (overloaded) at capacity with Retry-After,
 * 5xx retried, 4xx the client's.
 */
export function anthropic(o: AnthropicOptions): Provider {
  const url = `${(o.baseURL ?? 'https://api.anthropic.com').replace(/\/+$/, '')}/v1/messages`;
  const version = o.version ?? ANTHROPIC_VERSION;
  const sampling = takesSampling(version);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'anthropic-version': version,
    ...(o.apiKey ? { 'x-api-key': o.apiKey } : {}),
  };
  const limit = o.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES.chat;
  const defaultMaxTokens = o.defaultMaxTokens ?? DEFAULT_MAX_COMPLETION_TOKENS;

  return {
    id: o.id,
    simulated: false,
    capabilities: new Set(['chat']),
    chat(req: UpstreamChatRequest, call: CallOptions): Promise<ProviderChatResult> {
      const body = JSON.stringify(messagesRequest(req, call.upstreamModel, defaultMaxTokens, sampling));
      const created = Math.floor(Date.now() / 1000);
      const sent = req.stream ? { ...headers, accept: 'text/event-stream' } : headers;
      return upstreamCall(o.fetch, url, sent, body, call, async (res, attempt) => {
        if (req.stream)
          return { kind: 'stream', body: await translatedStream(res, anthropicStream(created), attempt.abort, () => attempt.end()) };
        const message = await responseJsonUpTo<Message>(res, limit);
        attempt.end();
        return { kind: 'json', body: completionOf(message, created) };
      });
    },
  };
}
