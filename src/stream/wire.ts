// The chat-completions wire format lives in the plugin SDK, so what plugins are typed
// against and what the pipeline hands them cannot drift.
export type {
  ChatChunk,
  ChatCompletion,
  ChatMessage,
  ChatRequest,
  ChatUsage,
  ChunkTransformer,
  ContentPart,
  UpstreamChatRequest,
} from '@svc/plugin-sdk';
