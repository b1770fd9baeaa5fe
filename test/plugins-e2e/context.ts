import { parseConfig } from '../../src/config';
import type { ModelEntry } from '../../src/models/catalog';
import type { ModelConfig } from '../../src/models/schema';
import type { ChatChunk, ChatMessage, ChunkTransformer, UpstreamChatRequest } from '../../src/stream/wire';
import type { Characters } from '../../src/characters';
import type { PluginContext, PluginServices } from '../../src/pipeline/plugin';
import { createSearchProvider, parseSearchConfig } from '../../providers/search';

/** A catalog entry for plugin unit tests, with the given capability flags. */
export function testModel(capabilities: Partial<NonNullable<ModelConfig['capabilities']>> = {}, id = 'm'): ModelEntry {
  const config = {
    id,
    type: 'text',
    routes: [{ provider: 'p', weight: 1 }],
    pricing: {},
    traits: [],
    privacy: 'private',
    capabilities,
  } as unknown as ModelConfig;
  return {
    id,
    name: id,
    type: 'text',
    tier: 'S',
    config,
    prices: { inputPerMillion: 0, outputPerMillion: 0, cacheInputPerMillion: 0, cacheWritePerMillion: 0, perUnit: 0 },
    simulated: false,
  };
}

/** A character store for contexts that use none: any use fails the test. */
const noCharacters = {
  get store(): never {
    throw new Error('this test context has no characters');
  },
  ready: Promise.resolve(),
} as Characters;

/** A PluginContext built by hand, for unit-testing a plugin without the chat route. */
export function testContext(
  o: {
    params?: Record<string, unknown>;
    config?: Record<string, unknown>;
    services?: Partial<PluginServices>;
    model?: ModelEntry;
    stream?: boolean;
  } = {},
): PluginContext {
  const config = parseConfig({ logLevel: 'silent', ...o.config });
  const log = { debug() {}, info() {}, warn() {}, error() {} };
  const search = parseSearchConfig(config.search);
  const services: PluginServices = {
    config,
    log,
    now: Date.now,
    urlGuard: { allowPrivate: config.allowPrivateUrls, fetch },
    web: { config: search, search: createSearchProvider(search, fetch) },
    characters: noCharacters,
    ...o.services,
  };
  return {
    request: { requestId: 'req-1', startedAt: 0, caller: null },
    services,
    model: o.model ?? testModel(),
    params: o.params ?? {},
    signal: new AbortController().signal,
    stream: o.stream ?? false,
    extraCharges: [],
    echo: {},
    leadingChunks: [],
  };
}

/** An upstream request with the given messages. */
export const testRequest = (messages: ChatMessage[]): UpstreamChatRequest => ({ model: 'm', messages });

/** A content chunk as an upstream sends it. */
export function contentChunk(
  content: string | null,
  extra: Partial<ChatChunk['choices'][number]['delta']> = {},
  finish: string | null = null,
): ChatChunk {
  return {
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta: { content, ...extra }, finish_reason: finish }],
  };
}

/** Runs chunks through a chunk transformer (as the proxy does) and collects what comes out. */
export async function runTransform(transformer: ChunkTransformer, chunks: ChatChunk[]): Promise<ChatChunk[]> {
  const out: ChatChunk[] = [];
  const emit = (chunk: ChatChunk) => void out.push(chunk);
  for (const chunk of chunks) transformer.transform(chunk, emit);
  transformer.flush?.(emit);
  return out;
}

/** Concatenated delta content of chunks. */
export const joined = (chunks: ChatChunk[]) => chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
