import type { AppDeps } from '../../src/deps';
import { parseConfig } from '../../src/config';
import type { ModelEntry } from '../../src/models/catalog';
import type { ModelConfig } from '../../src/models/schema';
import type { ChatChunk, ChatContext, ChatMessage, ChunkTransformer, UpstreamChatRequest } from '../../src/pipeline/types';

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

/** A ChatContext built by hand, for unit-testing a plugin without the chat route. */
export function testContext(
  o: {
    params?: Record<string, unknown>;
    config?: Record<string, unknown>;
    deps?: Partial<AppDeps>;
    model?: ModelEntry;
    stream?: boolean;
  } = {},
): ChatContext {
  const config = parseConfig({ logLevel: 'silent', ...o.config });
  const log = { debug() {}, info() {}, warn() {}, error() {} };
  const deps = { config, log, fetch, now: Date.now, ...o.deps } as unknown as AppDeps;
  return {
    request: { requestId: 'req-1', startedAt: 0, caller: null },
    deps,
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
