import { parseConfig } from '../../src/config';
import type { ModelEntry } from '../../src/models/catalog';
import type { ModelConfig } from '../../src/models/schema';
import type { ChatChunk, ChatMessage, ChunkTransformer, UpstreamChatRequest } from '../../src/stream/wire';
import type { PluginContext, PluginServices } from '../../src/pipeline/plugin';
import { createSearchProvider, parseSearchConfig } from '../../providers/search';
import { guardedFetch } from '../../src/net/guarded-fetch';
import { textTokens } from '../../src/pipeline/tokens';
import { scrapeUrls } from '../../src/scrape';
import { pluginMetrics } from '../../src/metrics/plugins';
import { pluginStores } from '../../src/plugin-host/store';
import { createMemoryStore } from '../../src/kv/memory';

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
const noCharacters: PluginServices['characters'] = {
  systemPrompt(): never {
    throw new Error('this test context has no characters');
  },
};

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
  const guard = { allowPrivate: config.allowPrivateUrls, fetch };
  const { scraping } = search;
  const services: PluginServices = {
    config,
    log,
    now: Date.now,
    urlGuard: guard,
    fetch: (url, { operatorUrl, ...f }) => guardedFetch(url, { ...guard, ...f, allowPrivate: guard.allowPrivate || operatorUrl === true }),
    countTokens: textTokens,
    web: {
      config: search,
      search: createSearchProvider(search, fetch),
      scrape: (urls, s) =>
        scrapeUrls(urls, {
          guard: { ...guard, timeoutMs: scraping.timeoutMs, maxBytes: scraping.maxBytes, signal: s.signal },
          maxChars: scraping.maxCharsPerPage,
        }),
    },
    characters: noCharacters,
    metrics: pluginMetrics('test'),
    ...o.services,
  };
  return {
    plugin: 'test',
    options: {},
    store: pluginStores(createMemoryStore(), 1 << 20, Date.now)('test'),
    setHeader() {},
    request: {
      requestId: 'req-1',
      startedAt: 0,
      accountId: null,
      keyId: null,
      assignedGuardrails: { key: [], account: [] },
      route: '/chat/completions',
      headers: new Headers(),
    },
    services,
    model: o.model ?? testModel(),
    params: o.params ?? {},
    signal: new AbortController().signal,
    stream: o.stream ?? false,
    extraCharges: [],
    echo: {},
    notes: {},
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
