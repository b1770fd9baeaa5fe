import { afterAll, describe, expect, test } from 'bun:test';
import { startTestApp } from '../helpers/app';

// The undeclared-status test: for every operation of the served description
// (GET /api/v1/openapi.json), the refusals svc can give are driven (no key, malformed
// credentials, a key that does not exist, an INFERENCE key, an ADMIN key of another account,
// bad, unknown and other accounts' path parameters, bad query values, bad bodies, a body over
// the size limit or one that stops arriving) and every status svc answers must be one the
// operation declares. The refusal is what is checked, so the ADMIN key of the operator's
// account goes last and only with requests that cannot succeed destructively.

type Responses = Record<string, unknown>;
type Operation = { responses?: Responses; parameters?: { name: string; in: string }[]; requestBody?: unknown };
type Paths = Record<string, Record<string, Operation>>;

/** A status svc answered that the operation does not declare, with what was sent. */
function undeclared(paths: Paths, method: string, path: string, status: number, sent: string): string | null {
  const declared = paths[path]?.[method.toLowerCase()]?.responses ?? {};
  return String(status) in declared ? null : `${method.toUpperCase()} ${path} answered ${status} (${sent})`;
}

// The smallest body limits, so a body over the size or arriving too slowly is cheap to send.
const t = await startTestApp({ config: { maxBodyBytes: 1024, bodyTimeoutMs: 100 } });
afterAll(() => t.close());
const described = ((await (await t.request('/openapi.json', { key: null })).json()) as { paths: Paths }).paths;

const created = await t.request('/api_keys', { method: 'POST', json: { apiKeyType: 'INFERENCE', description: 'statuses' } });
const inference = ((await created.json()) as { data: { apiKey: string } }).data.apiKey;
const scratch = await t.request('/admin/accounts', { method: 'POST', json: { scratch: true } });
const otherAdmin = ((await scratch.json()) as { data: { apiKey: { apiKey: string } } }).data.apiKey.apiKey;
// A key of the other account that the other account's own calls may delete (DELETE /api_keys?id=).
const otherInference = await t.request('/api_keys', {
  method: 'POST',
  key: otherAdmin,
  json: { apiKeyType: 'INFERENCE', description: 'statuses' },
});
const otherKeyId = ((await otherInference.json()) as { data: { id: string } }).data.id;
const accounts = (await (await t.request('/admin/accounts')).json()) as { data: { id: string; operator: boolean }[] };
const ownAccount = accounts.data.find((a) => a.operator)!.id;

/**
 * Values for path parameters: unknown but well-formed, malformed, another account's (a key id),
 * and (accountId) the operator's own, which is not a scratch account.
 */
const PATH_VALUES: Record<string, string[]> = {
  id: ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', otherKeyId],
  accountId: ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', ownAccount],
  slug: ['no-such-character', '%20'],
  walletAddress: ['0x00000000000000000000000000000000000000a1', 'not-an-address'],
  network: ['svc-sim-mainnet', 'no-such-network'],
  response_id: ['resp_00000000000000000000-SVC', '%20', 'r'.repeat(300)],
  requestId: ['no-such-request'],
  keyId: ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', otherKeyId],
};

/** The request variants of one operation: a path, a query string, and a body (JSON value, or raw text with its type). */
function variants(path: string, op: Operation, method: string) {
  const pathNames = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const paths =
    pathNames.length === 0
      ? [path]
      : PATH_VALUES[pathNames[0]!]!.map((v) =>
          path.replace(/\{(\w+)\}/g, (_, n: string) => (n === pathNames[0] ? v : PATH_VALUES[n]![0]!)),
        );
  const queryNames = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
  // Every query parameter malformed at once, and each one named like a path parameter with those values.
  const queries = [
    ...(queryNames.length > 0 ? [queryNames.map((n) => `${encodeURIComponent(n)}=-1x`).join('&')] : []),
    ...queryNames.flatMap((n) => (PATH_VALUES[n] ?? []).map((v) => `${n}=${encodeURIComponent(v)}`)),
  ];
  const bodies: ({ json: unknown } | { raw: string; type: string } | null)[] =
    method === 'get'
      ? [null]
      : [
          ...(method === 'delete' ? [null] : []),
          { json: {} },
          { json: [] },
          { json: { pad: 'x'.repeat(2048) } },
          { raw: '{"', type: 'application/json' },
          { raw: 'x', type: 'text/plain' },
        ];
  const out: { url: string; body: (typeof bodies)[number] }[] = [];
  for (const url of paths) {
    for (const body of bodies) out.push({ url, body });
    for (const query of queries) out.push({ url: `${url}?${query}`, body: bodies[0]! });
  }
  return out;
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
/** Who calls, as the headers they send. */
const CALLERS: [string, Record<string, string>][] = [
  ['no key', {}],
  ['a malformed Authorization header', { authorization: 'Basic x' }],
  ['a malformed wallet sign-in', { 'sign-in-with-x': 'x' }],
  ['an unknown key', bearer(`svc_${'A'.repeat(43)}`)],
  ['an INFERENCE key', bearer(inference)],
  ["another account's ADMIN key", bearer(otherAdmin)],
  ["the operator's ADMIN key", bearer(t.adminKey)],
];

async function send(method: string, url: string, headers: Record<string, string>, body: ReturnType<typeof variants>[number]['body']) {
  const init: Parameters<typeof t.request>[1] = { method: method.toUpperCase(), key: null, headers };
  if (body && 'json' in body) init.json = body.json;
  else if (body) Object.assign(init, { body: body.raw, headers: { ...headers, 'content-type': body.type } });
  const response = await t.request(url, init);
  await response.arrayBuffer();
  return response.status;
}

/** Sends the first bytes of a JSON body and then nothing more, until svc has answered. */
async function sendStalled(url: string, method: string, key: string) {
  let stop = () => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"'));
      stop = () => controller.close();
    },
  });
  const response = await t.request(url, { method: method.toUpperCase(), key, body, headers: { 'content-type': 'application/json' } });
  stop();
  await response.arrayBuffer();
  return response.status;
}

const operations = Object.entries(described).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));

describe('every status svc answers is declared in the served description', () => {
  test('the check can fail: a status an operation does not declare is reported', () => {
    const paths: Paths = { '/x': { get: { responses: { '200': {}, '401': {} } } } };
    expect(undeclared(paths, 'get', '/x', 401, 'no key')).toBeNull();
    expect(undeclared(paths, 'get', '/x', 403, 'an INFERENCE key')).toBe('GET /x answered 403 (an INFERENCE key)');
  });

  test('there are operations to drive', () => expect(operations.length).toBeGreaterThan(50));

  // The OpenAPI plugin replaces a route's `detail.responses` with its `response` schemas when it
  // has both, so statuses declared in `detail` of such a route would silently go missing.
  test('every status a route declares in its detail is in the served description', () => {
    const lost: string[] = [];
    for (const route of t.app.routes) {
      const detail = route.hooks.detail as { responses?: Responses; hide?: boolean } | undefined;
      if (!detail?.responses || detail.hide) continue;
      const path = route.path.replace(/^\/api\/v1/, '').replace(/:(\w+)/g, '{$1}');
      const served = described[path]?.[route.method.toLowerCase()]?.responses ?? {};
      for (const status of Object.keys(detail.responses)) if (!(status in served)) lost.push(`${route.method} ${path} ${status}`);
    }
    expect(lost).toEqual([]);
  });

  test.each(operations.map((o) => [`${o.method.toUpperCase()} ${o.path}`, o] as const))(
    '%s',
    async (_, { path, method, op }) => {
      // The first request that got each undeclared status.
      const found = new Map<number, string>();
      for (const [caller, headers] of CALLERS)
        for (const { url, body } of variants(path, op, method)) {
          const status = await send(method, url, headers, body);
          const sent = `${caller}, ${url}${body ? `, body ${'json' in body ? JSON.stringify(body.json) : `${body.type} ${body.raw}`}` : ''}`;
          const problem = undeclared(described, method, path, status, sent);
          if (problem && !found.has(status)) found.set(status, problem);
        }
      if (method !== 'get') {
        const url = variants(path, op, method)[0]!.url;
        const status = await sendStalled(url, method, t.adminKey);
        const problem = undeclared(described, method, path, status, `the operator's ADMIN key, ${url}, a body that stops arriving`);
        if (problem && !found.has(status)) found.set(status, problem);
      }
      expect([...found.values()]).toEqual([]);
    },
    60_000,
  );

  // Last: a variant that revoked a caller's key would hide every refusal after it.
  test('the callers still hold their keys', async () => {
    for (const key of [inference, otherAdmin, t.adminKey]) expect((await t.request('/billing/balance', { key })).status).not.toBe(401);
  });
});
