import type { AnyPlugin, ChatRequest } from '@svc/plugin-sdk';
import { createApp } from '../app';
import { bootstrapAdminKey } from '../auth/bootstrap';
import type { MeteredUsage } from '../billing/meter';
import { closeDeps, createDeps } from '../boot';
import { parseConfig } from '../config';
import { openPglite } from '../db/open';
import { createMemoryStore } from '../kv/memory';
import { eventText } from '../stream/encoder';

/** The answer text of a scripted upstream for one request (it is sent as a stream when one is asked). */
export type ScriptedUpstream = (req: ChatRequest) => string | Promise<string>;

/** What `startPluginHarness` runs: the plugins (with operator options) and the upstream. */
export interface HarnessOptions {
  plugins: { plugin: AnyPlugin; options?: Record<string, unknown> }[];
  /** A scripted upstream; svc's simulator when absent. */
  upstream?: ScriptedUpstream;
  /** Config fields over the harness's own (e.g. `systemPrompt`). */
  config?: Record<string, unknown>;
}

/** A running svc with the plugins under test, called in process. */
export interface PluginHarness {
  /** The model to call. */
  model: string;
  /** What the scripted upstream received (empty on the simulator). */
  upstreamRequests: ChatRequest[];
  /** What the meter settled, one entry per settled request. */
  settlements: MeteredUsage[];
  /** POSTs `body` as JSON to `path` under the API base (`/chat/completions`, `/responses`). */
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

/** A scripted upstream on 127.0.0.1: records each request, answers JSON or SSE of the script's text. */
function scriptedServer(script: ScriptedUpstream, requests: ChatRequest[]) {
  return Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const body = (await req.json()) as ChatRequest;
      requests.push(body);
      const text = await script(body);
      const usage = { prompt_tokens: 10, completion_tokens: Math.max(1, text.split(/\s+/).length), total_tokens: 0 };
      usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
      const base = { id: 'chatcmpl-scripted', created: 1, model: body.model };
      if (!body.stream) {
        const message = { role: 'assistant', content: text };
        return Response.json({
          ...base,
          object: 'chat.completion',
          choices: [{ index: 0, message, finish_reason: 'stop', logprobs: null }],
          usage,
        });
      }
      const chunk = (delta: Record<string, unknown>, finish: string | null) =>
        eventText({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] });
      let sse = chunk({ role: 'assistant', content: '' }, null);
      for (const piece of text.match(/\S+\s*/g) ?? []) sse += chunk({ content: piece }, null);
      sse += chunk({}, 'stop') + eventText({ ...base, object: 'chat.completion.chunk', choices: [], usage }) + 'data: [DONE]\n\n';
      return new Response(sse, { headers: { 'content-type': 'text/event-stream' } });
    },
  });
}

/**
 * svc in this process with `plugins` as its only plugins: an embedded database in memory,
 * an ADMIN key, and svc's simulator or a scripted upstream. The plugin SDK's test kit
 * (`@svc/plugin-sdk/testing`) drives it; svc's own tests may too.
 */
export async function startPluginHarness(o: HarnessOptions): Promise<PluginHarness> {
  const upstreamRequests: ChatRequest[] = [];
  const server = o.upstream ? scriptedServer(o.upstream, upstreamRequests) : null;
  const scripted = server
    ? {
        providers: [{ id: 'scripted', kind: 'openai-compatible', baseURL: `http://127.0.0.1:${server.port}/v1` }],
        models: [{ id: 'scripted-model', type: 'text', routes: [{ provider: 'scripted' }], pricing: { input: '1', output: '2' } }],
      }
    : {};
  const config = parseConfig({ logLevel: 'silent', abuseGuard: { enabled: false }, ...scripted, ...o.config });
  const storage = await openPglite();
  const deps = await createDeps(config, { storage, kv: createMemoryStore() });
  const settlements: MeteredUsage[] = [];
  const meter = deps.meter;
  // The meter as it is, with each settlement recorded for the test.
  deps.meter = {
    ...meter,
    async open(input) {
      const ticket = await meter.open(input);
      return {
        headers: ticket.headers,
        balances: ticket.balances,
        settle(usage) {
          settlements.push(usage);
          return ticket.settle(usage);
        },
        release: () => ticket.release(),
      };
    },
  };
  const key = (await bootstrapAdminKey(storage.db, config.bootstrapCreditUsd)) as string;
  const app = createApp(deps, {
    chat: { pingIntervalMs: 1000, plugins: o.plugins.map((p) => ({ plugin: p.plugin, options: p.options ?? {} })) },
  });
  const model = server ? 'scripted-model' : (deps.models.list('text')[0]?.id ?? '');
  return {
    model,
    upstreamRequests,
    settlements,
    post(path, body, headers = {}) {
      const init = {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      };
      return app.handle(new Request(`http://localhost${config.basePath}${path}`, init));
    },
    async close() {
      server?.stop(true);
      await closeDeps(deps);
    },
  };
}
