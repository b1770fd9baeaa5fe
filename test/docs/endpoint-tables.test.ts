import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestApp, type TestApp } from '../helpers/app';
import { documentationPages, markdownTables, pageText } from './markdown';

// Endpoint tables in the docs name their routes in a column headed Route, Path or Endpoint,
// and each has an Auth and a Statuses column, both checked against the running service:
// - Statuses: exactly the responses the served OpenAPI description (GET /api/v1/openapi.json)
//   declares for each route of the row (a status the docs promise exists there, and the reverse);
// - Auth: what a request without a key, with an INFERENCE key, with an ADMIN key and with an
//   ADMIN key of another (non-operator) account gets, as below. Wallets are not signed in here:
//   "key or wallet" is checked for keys (test/wallet/ and test/x402/ cover sign-in on those routes).
// And every operation of the served description is in one of these tables.
const ROUTE = /^`(GET|POST|PUT|PATCH|DELETE) (\/[^`?\s]*)(\?[^`]*)?`$/;
const isRouteColumn = (name: string) => /^(route|path|endpoint)/i.test(name);

/** Who may call, as an Auth cell says it, and what each caller gets (null: anything but 401 and 403). */
const AUTH: Record<
  string,
  { none: number | number[] | null; inference?: number | null; admin?: number | null; otherAdmin?: number | null }
> = {
  none: { none: null },
  optional: { none: null, inference: null },
  'key or wallet': { none: [401, 402], inference: null, admin: null },
  'ADMIN key': { none: 401, inference: 403, admin: null },
  operator: { none: 401, inference: 403, admin: null, otherAdmin: 403 },
  'that wallet': { none: [401, 402], admin: 403 },
};

const ROWS = documentationPages().flatMap((page) =>
  markdownTables(pageText(page)).flatMap(({ header, rows }) => {
    const routeColumns = header.flatMap((name, i) => (isRouteColumn(name) ? [i] : []));
    const column = (name: string) => header.findIndex((cell) => cell.toLowerCase() === name);
    return rows.flatMap(({ cells, line }) => {
      const routes = routeColumns
        .flatMap((i) => cells[i]!.split(/,\s*/))
        .map((text) => ROUTE.exec(text.trim()))
        .filter((m) => m !== null)
        .map((m) => ({ method: m[1]!, path: m[2]!.replace(/^\/api\/v1(?=\/)/, '') }));
      if (routes.length === 0) return [];
      const statuses = column('statuses') < 0 ? null : [...cells[column('statuses')]!.matchAll(/\b[1-5]\d\d\b/g)].map((m) => m[0]);
      const auth = column('auth') < 0 ? null : cells[column('auth')]!;
      return [{ name: `${page}:${line}`, routes, statuses, auth }];
    });
  }),
);

// Path parameters get values that exist or are at least well-formed.
const SAMPLE: Record<string, string> = {
  id: '00000000-0000-4000-8000-000000000000',
  accountId: '00000000-0000-4000-8000-000000000000',
  keyId: '00000000-0000-4000-8000-000000000000',
  slug: 'no-such-character',
  walletAddress: '0x00000000000000000000000000000000000000a1',
  network: 'svc-sim-mainnet',
};

let t: TestApp;
let described: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
const keys: Record<'inference' | 'admin' | 'otherAdmin', string> = { inference: '', admin: '', otherAdmin: '' };
beforeAll(async () => {
  t = await startTestApp();
  described = ((await (await t.request('/openapi.json')).json()) as { paths: typeof described }).paths;
  keys.admin = t.adminKey;
  const created = await t.request('/api_keys', { method: 'POST', json: { apiKeyType: 'INFERENCE', description: 'docs' } });
  keys.inference = ((await created.json()) as { data: { apiKey: string } }).data.apiKey;
  const scratch = await t.request('/admin/accounts', { method: 'POST', json: { scratch: true } });
  keys.otherAdmin = ((await scratch.json()) as { data: { apiKey: { apiKey: string } } }).data.apiKey.apiKey;
});
afterAll(() => t.close());

/** The status of `method path` called with `key` (an empty JSON object as the body where one goes). */
async function statusOf(method: string, path: string, key: string | null): Promise<number> {
  const url = path.replace(/\{(\w+)\}/g, (_, name: string) => SAMPLE[name]!);
  const json = method === 'GET' ? undefined : {};
  return (await t.request(url, { method, key, json })).status;
}

describe('endpoint tables in the docs', () => {
  test('there are some (this test reads them)', () => expect(ROWS.length).toBeGreaterThan(40));

  test('every operation the service describes is in an endpoint table', () => {
    const documented = new Set(ROWS.flatMap((r) => r.routes.map((x) => `${x.method} ${x.path}`)));
    const served = Object.entries(described).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(served.filter((operation) => !documented.has(operation))).toEqual([]);
  });

  test.each(ROWS)('$name: the statuses are the served OpenAPI description’s', ({ routes, statuses }) => {
    expect(statuses, 'an endpoint table needs a Statuses column').not.toBeNull();
    for (const { method, path } of routes) {
      const operation = described[path]?.[method.toLowerCase()];
      expect(operation, `${method} ${path} is not in the served description`).toBeDefined();
      expect([...statuses!].sort()).toEqual(Object.keys(operation!.responses ?? {}).sort());
    }
  });

  test.each(ROWS)('$name: the Auth column says who may call', async ({ routes, auth }) => {
    const rule = AUTH[auth ?? ''];
    expect(rule, `an endpoint table needs an Auth column, one of: ${Object.keys(AUTH).join(', ')} (got ${auth})`).toBeDefined();
    for (const { method, path } of routes) {
      for (const [caller, expected] of Object.entries(rule!)) {
        const key = caller === 'none' ? null : keys[caller as keyof typeof keys];
        const status = await statusOf(method, path, key);
        const what = `${method} ${path} called with ${caller === 'none' ? 'no key' : `the ${caller} key`}`;
        if (expected === null) expect([401, 403], what).not.toContain(status);
        else expect([expected].flat(), what).toContain(status);
      }
    }
  });
});
