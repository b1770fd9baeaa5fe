import { recordingMeter, fixtureModel, fixtureProvider } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import type { FixtureEngine } from '../fixtures/search-engines';
import { startBrave } from '../fixtures/search-brave';
import { startSearxng } from '../fixtures/search-searxng';
import { startWebPages, type WebPages } from '../fixtures/web-pages';
import { startTestApp, type TestApp } from '../helpers/app';

/** Everything an end-to-end plugin test talks to, all on 127.0.0.1. */
export interface PluginWorld {
  t: TestApp;
  upstream: FixtureUpstream;
  engine: FixtureEngine;
  site: WebPages;
  meter: ReturnType<typeof recordingMeter>;
  /** POST /chat/completions with `model` and one user message unless given. */
  chat(json: Record<string, unknown>): Promise<Response>;
  /** The body the upstream received last. */
  lastUpstream(): Record<string, unknown> & { messages: { role: string; content: unknown }[] };
  reset(): void;
  close(): Promise<void>;
}

/** The service default prompt in these tests. */
export const DEFAULT_PROMPT = 'SVC DEFAULT PROMPT';

/**
 * Boots the app with the real plugin registry against a fixture OpenAI-compatible upstream,
 * a fixture SearXNG and fixture web pages. Models: fix-plain (no capabilities), fix-prompted
 * (includeSvcSystemPrompt: true), fix-fc
 * (function calling), fix-think (disable-thinking capable), fix-x (native x-search).
 */
export async function startPluginWorld(
  opts: { allowPrivateUrls?: boolean; engine?: 'searxng' | 'brave'; config?: Record<string, unknown> } = {},
): Promise<PluginWorld> {
  const upstream = startUpstream('up');
  const brave = opts.engine === 'brave';
  const engine = brave ? startBrave() : startSearxng();
  const site = startWebPages();
  const meter = recordingMeter();
  const t = await startTestApp({
    meter: meter.meter,
    extras: { chat: { pingIntervalMs: 1000 } },
    config: {
      systemPrompt: DEFAULT_PROMPT,
      allowPrivateUrls: opts.allowPrivateUrls ?? true,
      search: {
        provider: brave ? 'brave' : 'searxng',
        baseUrl: engine.url,
        apiKey: brave ? 'brave-test-key' : undefined,
        timeoutMs: 1000,
        maxResults: 3,
        priceMicros: 10_000,
        xSearchPriceMicros: 20_000,
        scraping: { priceMicros: 4_000, timeoutMs: 1000 },
      },
      providers: [fixtureProvider('up', upstream.url)],
      models: [
        fixtureModel('fix-plain', ['up']),
        fixtureModel('fix-prompted', ['up'], { includeSvcSystemPrompt: true }),
        fixtureModel('fix-fc', ['up'], { capabilities: { supportsFunctionCalling: true } }),
        fixtureModel('fix-think', ['up'], { capabilities: { supportsReasoning: true, supportsDisableThinking: true } }),
        fixtureModel('fix-x', ['up'], { capabilities: { supportsXSearch: true } }),
      ],
      ...opts.config,
    },
  });
  const world: PluginWorld = {
    t,
    upstream,
    engine,
    site,
    meter,
    chat: (json) =>
      t.request('/chat/completions', {
        method: 'POST',
        json: { model: 'fix-plain', messages: [{ role: 'user', content: 'Hi' }], ...json },
      }),
    lastUpstream: () => upstream.requests.at(-1)?.body as ReturnType<PluginWorld['lastUpstream']>,
    reset() {
      upstream.set({});
      engine.set({});
      upstream.requests.length = 0;
      engine.queries.length = 0;
      meter.calls.opened.length = 0;
      meter.calls.settled.length = 0;
      meter.calls.released = 0;
    },
    async close() {
      await t.close();
      await upstream.close();
      await engine.close();
      await site.close();
    },
  };
  return world;
}
