import { randomBytes } from 'node:crypto';
import { createApp } from '../../src/app';
import { createApiKey, hashSecret } from '../../src/auth/api-keys';
import { bootstrapAdminKey, createAccount } from '../../src/auth/bootstrap';
import { createDeps } from '../../src/boot';
import { parseConfig } from '../../src/config';
import type { Storage } from '../../src/db/database';
import type { AppDeps } from '../../src/deps';
import { abuseGuardOf } from '../../src/gates/abuse-guard';
import type { KeyValueStore } from '../../src/kv/store';
import { unlimited, type RateLimitRefusal, type RateLimiter } from '../../src/limits/types';
import type { TestBackend } from '../helpers/backends';

/** One app instance over a shared database and KV namespace. */
export interface Instance {
  deps: AppDeps;
  /** Sends a request through app.handle; `key: null` sends no Authorization header. */
  request(path: string, init?: RequestInit & { key?: string | null }): Promise<Response>;
  /** Waits until the failures of earlier responses are counted. */
  settled(): Promise<void>;
}

/** Two instances sharing one database and one KV namespace, with a fake clock and keys. */
export interface Cluster {
  a: Instance;
  b: Instance;
  adminKey: string;
  adminAccountId: string;
  /** An INFERENCE key of another account. */
  otherKey: string;
  refusals: RateLimitRefusal[];
  clock: { now: number };
  close(): Promise<void>;
}

/** Starts two instances of `backend` with the given abuseGuard config and a clock starting at a window boundary. */
export async function startCluster(backend: TestBackend, abuseGuard: Record<string, unknown> = {}): Promise<Cluster> {
  const clock = { now: Math.ceil(Date.now() / 60_000) * 60_000 };
  const now = () => clock.now;
  const config = parseConfig({ logLevel: 'silent', abuseGuard });
  const storage: Storage = await backend.storage();
  const prefix = `t:abuse:${randomBytes(6).toString('hex')}:`;
  const kvA: KeyValueStore = await backend.kv({ now, prefix });
  const kvB = backend.name === 'embedded' ? kvA : await backend.kv({ now, prefix });
  const refusals: RateLimitRefusal[] = [];
  const limits: RateLimiter = { ...unlimited, log: { record: (r) => void refusals.push(r), flush: async () => {} } };
  const adminKey = (await bootstrapAdminKey(storage.db, config.bootstrapCreditUsd)) as string;
  const other = await createAccount(storage.db, { creditUsd: '1' });
  const otherKey = (await createApiKey(storage.db, { accountId: other, type: 'INFERENCE' })).secret;

  async function instance(kv: KeyValueStore): Promise<Instance> {
    const deps = await createDeps(config, { storage, kv, now, limits });
    const app = createApp(deps);
    const guard = abuseGuardOf(deps);
    await guard.ready;
    return {
      deps,
      request(path, init = {}) {
        const headers = new Headers(init.headers);
        const key = init.key === undefined ? adminKey : init.key;
        if (key) headers.set('authorization', `Bearer ${key}`);
        return app.handle(new Request(`http://localhost${config.basePath}${path}`, { ...init, headers }));
      },
      settled: () => guard.idle(),
    };
  }
  const a = await instance(kvA);
  const b = await instance(kvB);
  const adminAccountId = (await a.deps.keys.lookup(hashSecret(adminKey)))!.accountId;
  return {
    a,
    b,
    adminKey,
    adminAccountId,
    otherKey,
    refusals,
    clock,
    async close() {
      for (const i of [a, b]) {
        await abuseGuardOf(i.deps).close();
        await i.deps.meter.close();
        await i.deps.keys.close();
      }
      await kvA.close();
      if (kvB !== kvA) await kvB.close();
      await storage.close();
    },
  };
}
