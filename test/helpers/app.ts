import { createApp, type AppExtras } from '../../src/app';
import { bootstrapAdminKey } from '../../src/auth/bootstrap';
import { closeDeps, createDeps } from '../../src/boot';
import type { UsageMeter } from '../../src/billing/meter';
import { parseConfig } from '../../src/config';
import type { AppDeps } from '../../src/deps';
import type { Logger } from '../../src/log';
import { EMBEDDED, type TestBackend } from './backends';

/** Options for a test app: config overrides, injected fetch/clock, and the backend. */
export interface TestAppOptions {
  backend?: TestBackend;
  config?: Record<string, unknown>;
  fetch?: typeof fetch;
  now?: () => number;
  meter?: UsageMeter;
  extras?: AppExtras;
  /** A logger to read what the app logs (access log lines); by default config.logLevel to stdout. */
  log?: Logger;
}

/** A running test app with its bootstrap ADMIN key and helpers to call it. */
export interface TestApp {
  app: ReturnType<typeof createApp>;
  deps: AppDeps;
  /** The bootstrap ADMIN key (its account starts with 100 USD). */
  adminKey: string;
  /** Sends a request through app.handle; `path` is relative to the base path. */
  request(path: string, init?: RequestInit & { key?: string | null; json?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

/** Builds an app on a fresh database and KV namespace of `backend` (embedded by default). */
export async function startTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const backend = opts.backend ?? EMBEDDED;
  // Suites that test refusals send dozens of failing requests from one account within
  // seconds, which is exactly what the abuse guard blocks; its own suite turns it on.
  const config = parseConfig({ logLevel: 'silent', abuseGuard: { enabled: false }, ...opts.config });
  const storage = await backend.storage();
  const kv = await backend.kv({ now: opts.now });
  const deps = await createDeps(config, { storage, kv, now: opts.now, fetch: opts.fetch, meter: opts.meter, log: opts.log });
  const adminKey = (await bootstrapAdminKey(storage.db, config.bootstrapCreditUsd)) as string;
  const app = createApp(deps, opts.extras);
  return {
    app,
    deps,
    adminKey,
    request(path, init = {}) {
      const headers = new Headers(init.headers);
      const key = init.key === undefined ? adminKey : init.key;
      if (key) headers.set('authorization', `Bearer ${key}`);
      let body = init.body;
      if (init.json !== undefined) {
        body = JSON.stringify(init.json);
        headers.set('content-type', 'application/json');
      }
      // Elysia finds the path by skipping a fixed-length origin, so keep a realistic host.
      return app.handle(new Request(`http://localhost${config.basePath}${path}`, { ...init, headers, body }));
    },
    close: () => closeDeps(deps),
  };
}
