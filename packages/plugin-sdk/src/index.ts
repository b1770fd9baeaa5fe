// The plugin SDK of svc: everything a plugin is written against, and nothing of svc itself.
export { Type } from '@sinclair/typebox';
export type { Static, TProperties, TSchema } from '@sinclair/typebox';
export type {
  ChatChunk,
  ChatCompletion,
  ChatMessage,
  ChatRequest,
  ChatUsage,
  ChunkTransformer,
  ContentPart,
  UpstreamChatRequest,
} from './wire.js';
export {
  definePlugin,
  type AnyPlugin,
  type DefinedPlugin,
  type Plugin,
  type PluginAnswer,
  type PluginCharge,
  type PluginContext,
  type PluginModel,
  type PluginRequest,
  type PluginServices,
  type PluginStore,
  type SettledOutcome,
} from './plugin.js';
export type {
  FetchedDocument,
  PluginCharacters,
  PluginFetch,
  PluginFetchOptions,
  PluginLogger,
  PluginSearchEngine,
  PluginWebTools,
  ScrapeResult,
  SearchResult,
} from './services.js';
export type { PluginCounter, PluginHistogram, PluginMetrics } from './metrics.js';
export { clientError, isClientError, isRefusal, PluginClientError, PluginRefusal, refuse, type RefusalStatus } from './refuse.js';
export {
  appendSystemText,
  completionText,
  lastUserMessage,
  lastUserText,
  messageText,
  prependSystemText,
  replaceLastUserText,
} from './messages.js';
export { chunksToCompletion, completionToChunks } from './chunks.js';
export { chainStages, stagesTransformer, type TextField, type TextStage } from './stages.js';
export { extractUrls, MAX_URLS, partialTagLength } from './text.js';
