// The plugin test kit: runs a plugin through svc's real pipeline in this process. It needs
// svc itself (an optional peer): run the tests from svc's folder, or name it with `svc` /
// SVC_ROOT. svc runs on Bun, so the kit does too.
import type { AnyPlugin } from '../plugin.js';
import type { ChatChunk, ChatCompletion, ChatRequest } from '../wire.js';

/** The answer text of a scripted upstream for one request. */
export type ScriptedUpstream = (req: ChatRequest) => string | Promise<string>;

/** How to run the plugin under test. */
export interface TestPluginOptions {
  /** The plugin's operator options (validated like the config's, defaults applied). */
  options?: Record<string, unknown>;
  /** Other plugins to run with it, in order after it. */
  with?: { plugin: AnyPlugin; options?: Record<string, unknown> }[];
  /** A scripted upstream (its requests are recorded); svc's simulator when absent. */
  upstream?: ScriptedUpstream;
  /** svc config fields (e.g. `systemPrompt`). */
  config?: Record<string, unknown>;
  /** svc's folder (default: SVC_ROOT, else the working directory). */
  svc?: string;
}

/** What a metered request settled: tokens and line items (micro-USD prices). */
export interface Settlement {
  promptTokens: number;
  completionTokens: number;
  extras?: { sku: string; units: number; unitPriceMicros: number }[];
}

/** A JSON answer as the client got it. */
export interface JsonReply {
  status: number;
  headers: Headers;
  /** The parsed body: a completion with `cost` and the `svc_parameters` echo, or `{ error }`. */
  body: ChatCompletion & { error?: string; [field: string]: unknown };
}

/** A streamed answer as the client got it. */
export interface StreamReply {
  status: number;
  headers: Headers;
  /** Every chunk (the usage chunk included); an in-band error is in `error`. */
  chunks: ChatChunk[];
  /** The content of the chunks, joined. */
  text: string;
  /** The in-band error's message, if the stream ended with one. */
  error: string | null;
  /** The JSON error when the request was refused before the stream started. */
  body: { error?: string } | null;
}

/** A plugin running in svc, and what to call and read. */
export interface PluginTestRun {
  /** The model the requests go to (the scripted one, or a simulator model). */
  model: string;
  /** POST /chat/completions, JSON (`model` and `messages` default to the run's model and one "Hi"). */
  chat(body?: Record<string, unknown>, headers?: Record<string, string>): Promise<JsonReply>;
  /** POST /chat/completions with `stream: true`. */
  stream(body?: Record<string, unknown>, headers?: Record<string, string>): Promise<StreamReply>;
  /** POST /responses, JSON. */
  responses(body: Record<string, unknown>): Promise<{ status: number; body: Record<string, unknown> }>;
  /** What the scripted upstream received, in order. */
  upstreamRequests: ChatRequest[];
  /** What the meter settled, in order. */
  settlements: Settlement[];
  close(): Promise<void>;
}

interface Harness {
  model: string;
  upstreamRequests: ChatRequest[];
  settlements: Settlement[];
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

type HarnessModule = { startPluginHarness(o: Record<string, unknown>): Promise<Harness> };

/** svc's harness module, found from `dir` (svc's own folder resolves `svc/plugin-harness` by its package name). */
async function harnessModule(dir: string): Promise<HarnessModule> {
  const bun = (globalThis as { Bun?: { resolveSync(spec: string, from: string): string } }).Bun;
  if (!bun) throw new Error('@svc/plugin-sdk/testing runs svc, which runs on Bun: run the tests with `bun test`');
  let path: string;
  try {
    path = bun.resolveSync('svc/plugin-harness', dir);
  } catch {
    throw new Error(`@svc/plugin-sdk/testing needs svc: run the tests from svc's folder, or set SVC_ROOT (looked in ${dir})`);
  }
  return (await import(path)) as HarnessModule;
}

/** The data payloads of an SSE body, in order (`[DONE]` left out). */
async function ssePayloads(res: Response): Promise<unknown[]> {
  const text = await res.text();
  const out: unknown[] = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trimStart())
      .join('\n');
    if (data && data !== '[DONE]') out.push(JSON.parse(data));
  }
  return out;
}

/**
 * Starts svc in this process with `plugin` (and `opts.with`) as its plugins, against the
 * simulator or a scripted upstream, for a test to call as a client would. Close it after.
 */
export async function testPlugin(plugin: AnyPlugin, opts: TestPluginOptions = {}): Promise<PluginTestRun> {
  const env = (globalThis as { process?: { env: Record<string, string | undefined>; cwd(): string } }).process;
  const mod = await harnessModule(opts.svc ?? env?.env.SVC_ROOT ?? env?.cwd() ?? '.');
  const h = await mod.startPluginHarness({
    plugins: [{ plugin, options: opts.options }, ...(opts.with ?? [])],
    upstream: opts.upstream,
    config: opts.config,
  });
  const withDefaults = (body: Record<string, unknown>) => ({ model: h.model, messages: [{ role: 'user', content: 'Hi' }], ...body });
  return {
    model: h.model,
    upstreamRequests: h.upstreamRequests,
    settlements: h.settlements,
    async chat(body = {}, headers) {
      const res = await h.post('/chat/completions', withDefaults(body), headers);
      return { status: res.status, headers: res.headers, body: (await res.json()) as JsonReply['body'] };
    },
    async stream(body = {}, headers) {
      const res = await h.post('/chat/completions', { ...withDefaults(body), stream: true }, headers);
      if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream'))
        return {
          status: res.status,
          headers: res.headers,
          chunks: [],
          text: '',
          error: null,
          body: (await res.json()) as { error?: string },
        };
      const chunks: ChatChunk[] = [];
      let error: string | null = null;
      for (const p of await ssePayloads(res)) {
        const e = (p as { error?: { message?: string } }).error;
        if (e) error = e.message ?? 'error';
        else chunks.push(p as ChatChunk);
      }
      const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
      return { status: res.status, headers: res.headers, chunks, text, error, body: null };
    },
    async responses(body) {
      const res = await h.post('/responses', { model: h.model, ...body });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    },
    close: () => h.close(),
  };
}
