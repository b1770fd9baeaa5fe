// The chat-completions wire format: what clients send, what upstreams answer, and the
// internal stream item (the chunk object itself, so the zero-copy path stays possible).

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

/** The chat-completions request as it goes to the provider; plugins may change it. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
  max_completion_tokens?: number;
  [field: string]: unknown;
}

/** The same request under the name svc's own code uses. */
export type UpstreamChatRequest = ChatRequest;

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
  /**
   * Awaited once after the upstream ended and every `flush` ran, before the stream's end (the
   * usage chunk and `[DONE]`) goes out: the one place a stream may wait, for a check of the
   * whole answer (an external classifier). What it emits goes through the later transformers;
   * it may throw `refuse(...)` (a `content_filter` finish and an in-band error). The client
   * waits for it, so it is one short call with its own timeout, never per chunk.
   */
  end?(emit: (chunk: ChatChunk) => void): Promise<void>;
}
