import type { TProperties } from '@sinclair/typebox';
import type { ExtraCharge } from '../billing/meter';
import type { AppDeps } from '../deps';
import type { RequestContext } from '../http/request-context';
import type { ModelEntry } from '../models/catalog';

/** Token usage as the chat-completions interface reports it. */
export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; cache_creation_input_tokens?: number } | null;
  completion_tokens_details?: { reasoning_tokens?: number } | null;
}

/** A content part of a user message (text, image_url, input_audio, video_url, file). */
export interface ContentPart {
  type: string;
  text?: string;
  cache_control?: { type: 'ephemeral'; ttl?: string };
  [field: string]: unknown;
}

/** A chat message as sent upstream. */
export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content: string | ContentPart[] | null;
  [field: string]: unknown;
}

/** The chat-completions request forwarded to the provider; plugins may change it. */
export interface UpstreamChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
  max_completion_tokens?: number;
  [field: string]: unknown;
}

/** The internal stream item: the chat-completions chunk object itself. */
export interface ChatChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: {
    index: number;
    delta: { role?: string; content?: string | null; reasoning_content?: string | null; tool_calls?: unknown[]; [field: string]: unknown };
    finish_reason: string | null;
    [field: string]: unknown;
  }[];
  usage?: ChatUsage | null;
  [field: string]: unknown;
}

/** A non-streaming chat completion. */
export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: number;
    message: {
      role: 'assistant';
      content: string | null;
      reasoning_content?: string | null;
      tool_calls?: unknown[];
      [field: string]: unknown;
    };
    finish_reason: string | null;
    logprobs: unknown;
    [field: string]: unknown;
  }[];
  usage: ChatUsage;
  [field: string]: unknown;
}

/** What every plugin sees and may add to while one chat request runs. */
export interface ChatContext {
  request: RequestContext;
  deps: AppDeps;
  model: ModelEntry;
  /** svc_parameters after merging body and model suffix, with defaults applied. */
  params: Record<string, unknown>;
  /** Aborted when the client disconnects or the request times out. */
  signal: AbortSignal;
  /** Whether the client asked for a stream. */
  stream: boolean;
  /** Extra line items to charge at settlement (web search, scraping, x-search). */
  extraCharges: ExtraCharge[];
  /** Fields merged into the response's `svc_parameters` echo (e.g. web_search_citations). */
  echo: Record<string, unknown>;
  /** Chunks emitted before the first upstream chunk (e.g. search results). */
  leadingChunks: ChatChunk[];
}

/**
 * A `svc_parameters` option (DESIGN "The request pipeline", stage 6). One folder in
 * plugins/ and one line in plugins/index.ts. Its `parameters` are composed into the
 * request schema and the OpenAPI description.
 */
export interface RequestPlugin {
  /** Unique plugin name, usually its main parameter. */
  name: string;
  /** TypeBox properties this plugin adds to `svc_parameters` (each optional, with a default). */
  parameters: TProperties;
  /** Parameter names accepted as model suffixes (`model:key=value`); defaults to none. */
  suffixKeys?: string[];
  /** Whether the plugin does anything for this request; inactive plugins cost nothing. */
  isActive(ctx: ChatContext): boolean;
  /** Changes the upstream request (system prompts, search context, native options). */
  transformRequest?(req: UpstreamChatRequest, ctx: ChatContext): void | Promise<void>;
  /** A chunk transform; its presence turns off zero-copy streaming for this request. */
  transformStream?(ctx: ChatContext): ChunkTransformer;
  /** Changes a non-streaming response. */
  transformResponse?(body: ChatCompletion, ctx: ChatContext): ChatCompletion | Promise<ChatCompletion>;
}

/**
 * A stream transform over chunk objects, its state in a closure: `transform` passes on zero,
 * one or several chunks through `emit`, `flush` what it still holds at the end. It is the
 * transformer a `TransformStream` would wrap, run synchronously by the proxy: a Web Streams
 * hop per plugin cost several microseconds and a socket write per chunk (measured), and
 * per-chunk work must never wait anyway.
 */
export interface ChunkTransformer {
  transform(chunk: ChatChunk, emit: (chunk: ChatChunk) => void): void;
  flush?(emit: (chunk: ChatChunk) => void): void;
}

/** What a provider returns for a chat call. */
export type ProviderChatResult =
  /** Upstream SSE bytes (already `data: {chunk}\n\n` framed), passed on untouched when no plugin transforms. */
  { kind: 'stream'; body: ReadableStream<Uint8Array>; replica: string } | { kind: 'json'; body: ChatCompletion; replica: string };

/**
 * A provider turns a normalized request into an upstream call (DESIGN "Provider").
 * Errors before the first byte are thrown as ServiceError (502/503/504); errors after it
 * surface as a failing stream, which the chat route turns into an in-band error event.
 */
export interface ChatProvider {
  readonly id: string;
  /** True for the built-in simulator, so /models and logs can say so. */
  readonly simulated: boolean;
  chat(req: UpstreamChatRequest, opts: { signal: AbortSignal; upstreamModel: string; timeoutMs: number }): Promise<ProviderChatResult>;
}
