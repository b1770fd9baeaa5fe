import type { TestApp } from '../helpers/app';

/** Something a suite closes at its end (a fixture upstream). */
interface Closable {
  close(): Promise<void>;
}

/** A fixture upstream as these suites reset it: what it was told, and what it received. */
interface Resettable {
  set(behaviour: Record<string, never>): void;
  requests: unknown[];
}

/** svc of `t` listening on a free port: its API base URL, and a close for it, `t` and the upstreams. */
export function listening(t: TestApp, ...upstreams: Closable[]) {
  t.app.listen({ port: 0, hostname: '127.0.0.1' });
  return {
    baseURL: `http://127.0.0.1:${t.app.server?.port}/api/v1`,
    async close() {
      await t.app.stop(true);
      await t.close();
      for (const upstream of upstreams) await upstream.close();
    },
  };
}

/** Puts fixture upstreams back to their default answers and forgets their requests. */
export function resetUpstreams(...upstreams: Resettable[]): void {
  for (const upstream of upstreams) {
    upstream.set({});
    upstream.requests.length = 0;
  }
}

/** The USD balance of the admin key's account, in micro-units (the API answers dollars). */
export async function usdMicros(t: TestApp): Promise<number> {
  const body = (await (await t.request('/billing/balance')).json()) as { balances: { usd: number } };
  return Math.round(body.balances.usd * 1e6);
}
