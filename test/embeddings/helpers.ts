import OpenAI from 'openai';
import { startTestApp, type TestApp } from '../helpers/app';
import type { TestBackend } from '../helpers/backends';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';

/** The embedding model of these suites: 1 micro-USD per input token (1 USD per million), 8 dimensions. */
export const EMB = 'emb';

/** svc listening on a free port with `EMB` on two fixture replicas (a, b), the official SDK pointed at it. */
export interface EmbeddingsApp {
  t: TestApp;
  a: FixtureUpstream;
  b: FixtureUpstream;
  client: OpenAI;
  close(): Promise<void>;
}

/** Starts the embeddings suites' app; `extraModels` are added to the catalog (a chat model, say). */
export async function startEmbeddingsApp(
  backend: TestBackend,
  extraModels: ReturnType<typeof fixtureModel>[] = [],
): Promise<EmbeddingsApp> {
  const a = startUpstream('a');
  const b = startUpstream('b');
  const t = await startTestApp({
    backend,
    config: {
      providers: [fixtureProvider('a', a.url, 300), fixtureProvider('b', b.url, 300)],
      models: [fixtureModel(EMB, ['a', 'b'], { type: 'embedding', pricing: { input: '1' }, dimensions: 8 }), ...extraModels],
    },
  });
  t.app.listen({ port: 0, hostname: '127.0.0.1' });
  const client = new OpenAI({ baseURL: `http://127.0.0.1:${t.app.server?.port}/api/v1`, apiKey: t.adminKey, maxRetries: 0 });
  return {
    t,
    a,
    b,
    client,
    async close() {
      await t.app.stop(true);
      await t.close();
      await a.close();
      await b.close();
    },
  };
}
