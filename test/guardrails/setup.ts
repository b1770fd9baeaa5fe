import OpenAI from 'openai';
import type { AnyPlugin } from '@svc/plugin-sdk';
import { PLUGINS } from '../../plugins';
import { createApp } from '../../src/app';
import type { PluginSpec } from '../../src/plugin-host/entries';
import { fixtureModel, fixtureProvider, recordingMeter } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import type { TestBackend } from '../helpers/backends';

/** Everything a guardrails test talks to: the app listening on 127.0.0.1, an openai client, the recording upstream. */
export interface GuardWorld {
  t: TestApp;
  client: OpenAI;
  upstream: FixtureUpstream;
  meter: ReturnType<typeof recordingMeter>;
  /** A second app over the same database and keys with other guardrail options (a key's assignment, known only after the key exists). */
  appWith(options: Record<string, Record<string, unknown>>): ReturnType<typeof createApp>;
  /** The text of the non-system messages the upstream received last. */
  upstreamText(): string;
  reset(): void;
  close(): Promise<void>;
}

/**
 * Boots the app with the real built-in plugins, the guardrails configured by `options`
 * (plugin name → operator options), against a fixture upstream. Models: fix-plain (no
 * guardrail of the operator's), fix-guarded (the operator assigns `deny_list` to it). Embedded storage unless `backend`;
 * a recording meter unless `realMeter` (then the ledger is written and /billing/usage reads it).
 */
export async function startGuardWorld(
  options: Record<string, Record<string, unknown>>,
  backend?: TestBackend,
  opts: { realMeter?: boolean } = {},
): Promise<GuardWorld> {
  const upstream = startUpstream('up');
  const meter = recordingMeter();
  const specsOf = (o: Record<string, Record<string, unknown>>): PluginSpec[] =>
    PLUGINS.map((plugin: AnyPlugin) => ({ plugin, options: o[plugin.name] ?? {} }));
  const t = await startTestApp({
    backend,
    meter: opts.realMeter ? undefined : meter.meter,
    extras: { chat: { plugins: specsOf(options), pingIntervalMs: 1000 } },
    config: {
      allowPrivateUrls: true,
      providers: [fixtureProvider('up', upstream.url)],
      models: [
        fixtureModel('fix-plain', ['up'], { capabilities: { supportsResponseSchema: true } }),
        fixtureModel('fix-guarded', ['up'], { capabilities: { supportsVision: true } }),
      ],
    },
  });
  t.app.listen({ port: 0, hostname: '127.0.0.1' });
  const client = new OpenAI({ baseURL: `http://127.0.0.1:${t.app.server?.port}/api/v1`, apiKey: t.adminKey, maxRetries: 0 });
  return {
    t,
    client,
    upstream,
    meter,
    appWith: (o) => createApp(t.deps, { chat: { plugins: specsOf(o) } }),
    upstreamText() {
      const body = upstream.requests.at(-1)?.body as { messages: { role: string; content: unknown }[] } | undefined;
      return (body?.messages ?? [])
        .filter((m) => m.role !== 'system')
        .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
        .join('\n');
    },
    reset() {
      upstream.set({});
      upstream.requests.length = 0;
      meter.calls.opened.length = 0;
      meter.calls.settled.length = 0;
      meter.calls.released = 0;
    },
    async close() {
      await t.app.stop(true);
      await t.close();
      await upstream.close();
    },
  };
}

/** The text of a streamed answer, its finish reason and the in-band error, read with the openai SDK. */
export async function streamed(stream: AsyncIterable<OpenAI.ChatCompletionChunk>) {
  let text = '';
  let finish: string | null = null;
  let error: string | null = null;
  try {
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
  } catch (e) {
    error = (e as Error).message;
  }
  return { text, finish, error };
}
