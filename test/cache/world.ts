import { createApiKey } from '../../src/auth/api-keys';
import { createAccount } from '../../src/auth/bootstrap';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startUpstream, type FixtureUpstream, type UpstreamBehaviour } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import type { TestBackend } from '../helpers/backends';

/** A listening svc with the cache plugin on a fixture upstream that counts its calls. */
export interface CacheWorld {
  t: TestApp;
  upstream: FixtureUpstream;
  /** The listening server's API base (`http://127.0.0.1:port/api/v1`). */
  base: string;
  /** POST `path` over HTTP with `key` (the bootstrap ADMIN key by default). */
  post(
    path: string,
    json: Record<string, unknown>,
    opts?: { key?: string; headers?: Record<string, string>; signal?: AbortSignal },
  ): Promise<Response>;
  /** POST /chat/completions of one user message to fix-plain, plus `extra`. */
  chat(
    content: string,
    extra?: Record<string, unknown>,
    opts?: { key?: string; headers?: Record<string, string>; signal?: AbortSignal },
  ): Promise<Response>;
  /** Chat completions the upstream received so far. */
  calls(): number;
  /** A new account with an ADMIN key. */
  account(): Promise<{ accountId: string; key: string }>;
  reset(behaviour?: UpstreamBehaviour): void;
  close(): Promise<void>;
}

/** Boots svc on `backend` with the cache's `options`, listening on a free port. */
export async function startCacheWorld(
  backend: TestBackend,
  options: Record<string, unknown> = {},
  extraConfig: Record<string, unknown> = {},
): Promise<CacheWorld> {
  const upstream = startUpstream('up');
  const t = await startTestApp({
    backend,
    config: {
      providers: [fixtureProvider('up', upstream.url)],
      models: [fixtureModel('fix-plain', ['up']), fixtureModel('fix-other', ['up'])],
      plugins: [{ name: 'cache', options }],
      ...extraConfig,
    },
  });
  t.app.listen({ port: 0, hostname: '127.0.0.1' });
  const base = `http://127.0.0.1:${t.app.server?.port}/api/v1`;
  const post: CacheWorld['post'] = (path, json, opts = {}) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${opts.key ?? t.adminKey}`, 'content-type': 'application/json', ...opts.headers },
      body: JSON.stringify(json),
      signal: opts.signal,
    });
  return {
    t,
    upstream,
    base,
    post,
    chat: (content, extra = {}, opts) =>
      post('/chat/completions', { model: 'fix-plain', messages: [{ role: 'user', content }], temperature: 0, ...extra }, opts),
    calls: () => upstream.requests.filter((r) => r.path.endsWith('/chat/completions')).length,
    async account() {
      const accountId = await createAccount(t.deps.storage.db, { creditUsd: '10' });
      const key = (await createApiKey(t.deps.storage.db, { accountId, type: 'ADMIN', description: 'cache' })).secret;
      return { accountId, key };
    },
    reset(behaviour = {}) {
      upstream.set(behaviour);
      upstream.requests.length = 0;
    },
    async close() {
      await t.app.stop(true);
      await t.close();
      await upstream.close();
    },
  };
}

/** The content of an SSE chat stream's chunks, its usage chunk and whether it ended with [DONE]. */
export async function readChatStream(
  res: Response,
): Promise<{ text: string; usage: Record<string, unknown> | null; done: boolean; chunks: number }> {
  const raw = await res.text();
  let text = '';
  let usage: Record<string, unknown> | null = null;
  let chunks = 0;
  for (const line of raw.split('\n')) {
    if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
    const chunk = JSON.parse(line.slice(6));
    chunks++;
    text += chunk.choices?.[0]?.delta?.content ?? '';
    if (chunk.usage) usage = chunk.usage;
  }
  return { text, usage, done: raw.trimEnd().endsWith('data: [DONE]'), chunks };
}
