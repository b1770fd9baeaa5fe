import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { hostileBodies, wideBodies, type BodySchemaLike, type HostileBody } from '../helpers/hostile-input';

/**
 * Every route that takes a body, read from the app's own route table (so routes added later
 * are covered without a line here), gets every class of hostile body with an ADMIN and with an
 * INFERENCE key: never a 5xx or an empty body, every refusal an `{ error }` JSON, each answer
 * with a CF-RAY and quick; a string no upstream can take (a lone surrogate) is a 400 naming its field. (A class can be valid on a field, a long description say: that
 * request may pass.)
 */

const MAX_BODY_BYTES = 2 * 1024 * 1024;
/**
 * CPU time per answer, not wall time: 8 engineers share 2 cores here and wall time measures the
 * queue. Generous: the probes this guards against took 3.9 s to minutes. Most answers take
 * milliseconds; a 1 MB run of random letters sent to embeddings is counted twice (svc's
 * reservation, then the in-process simulator's usage), 0.7 to 1.4 s of CPU on this machine.
 */
const EACH_CPU_MS = 2_000;
/**
 * CPU per wide-array answer (a body of up to 100,000 elements, about 1.3 MB), the previous
 * body's garbage collected first. Measured here: 1 to 8 ms (parsing the body and allocating its
 * values; a body that fails its schema is refused at its first wrong element, before Elysia
 * copies it, src/gates/body-check.ts); the bound leaves room for a loaded machine (24 ms was seen
 * once with other test runs and benchmarks on both cores; 1 to 8 ms on a quiet one). Before the array caps, an over-long array cost 100 to 250 ms in TypeBox's
 * error enumeration, and before the body check a wide array of wrong elements cost 10 to 70 ms
 * (Elysia's normalizing copy of every element, and its validation error serializing the body).
 */
const WIDE_CPU_MS = 40;
/**
 * The wide bound also allows twice `JSON.parse` of the same body, measured in this process just
 * before (its garbage collected): on an AMD EPYC machine the parse of a 100,000-object body
 * alone costs 25-30 ms, against 1-3.5 on the Intel machine the 40 ms was set on, and one CI run
 * there read 93 ms on every try. A validation that walks every element costs several times the
 * parse, so it still fails.
 */
const PARSE_FACTOR = 2;

/** CPU ms of `JSON.parse(text)` in this process, its garbage collected after. */
function parseCpuMs(text: string): number {
  const cpu = process.cpuUsage();
  JSON.parse(text);
  const used = process.cpuUsage(cpu);
  Bun.gc(true);
  return (used.user + used.system) / 1000;
}
/** Tries of an answer over its CPU budget before it counts. */
const ATTEMPTS = 5;
/** A hang still fails, whatever the load. */
const EACH_WALL_MS = 15_000;
/** The default catalog (text, embedding and image models on the simulator), so hostile fields reach the checks past model resolution. */
const CONFIG = { maxBodyBytes: MAX_BODY_BYTES };

interface BodyRoute {
  method: string;
  path: string;
  schema: BodySchemaLike | undefined;
}

/** The app's routes that take a body, with their body schema. */
function bodyRoutes(t: TestApp): BodyRoute[] {
  const routes = (t.app as unknown as { routes: { method: string; path: string; hooks?: { body?: unknown } }[] }).routes;
  return routes
    .filter((r) => r.method !== 'GET' && r.method !== 'HEAD' && r.method !== 'OPTIONS')
    .map((r) => ({
      method: r.method,
      path: r.path,
      schema: r.hooks?.body && typeof r.hooks.body === 'object' ? (r.hooks.body as BodySchemaLike) : undefined,
    }));
}

/**
 * A catalog model for a route that requires `model`, so hostile fields also reach the checks
 * past validation (routes where `model` is optional pick their default). Guessed from the path;
 * a new family whose guess is wrong still gets every class, refused at model resolution.
 */
function modelFor(route: BodyRoute, models: { id: string; type: string }[]): string | undefined {
  if (!route.schema?.required?.includes('model')) return undefined;
  const type = /embedding/.test(route.path) ? 'embedding' : /image/.test(route.path) ? 'image' : 'text';
  return models.find((m) => m.type === type)?.id;
}

/**
 * Sends each body with each key; the problems found, one line per body (empty when all is
 * well). An answer over the CPU budget is measured up to four more times (a garbage collection or
 * another helper's load can land in any one answer); a cost that is really there is there
 * every time.
 */
async function probeRoute(
  t: TestApp,
  route: BodyRoute,
  keys: Record<string, string>,
  bodies: HostileBody[],
  cpuBudgetMs: number,
  { collectFirst = false } = {},
) {
  const path = route.path.replace(/:[A-Za-z]+/g, '00000000-0000-4000-8000-000000000000');
  const failures: string[] = [];
  for (const [scope, key] of Object.entries(keys))
    for (const body of bodies)
      for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
        // The previous wide body's garbage (100,000 objects) is collected by threads whose CPU this
        // process counts: collected before the answer, it is not charged to it.
        if (collectFirst) Bun.gc(true);
        const budgetMs = collectFirst ? cpuBudgetMs + PARSE_FACTOR * parseCpuMs(body.text) : cpuBudgetMs;
        const started = performance.now();
        const cpu = process.cpuUsage();
        const res = await t.app.handle(
          new Request(`http://localhost${path}`, {
            method: route.method,
            // Content-Length as a client sends it: the body limit reads it first.
            headers: {
              authorization: `Bearer ${key}`,
              'content-type': 'application/json',
              'content-length': String(Buffer.byteLength(body.text)),
            },
            body: body.text,
          }),
        );
        const text = await res.text();
        const used = process.cpuUsage(cpu);
        const cpuMs = (used.user + used.system) / 1000;
        const wallMs = performance.now() - started;
        let error: unknown;
        try {
          error = (JSON.parse(text) as { error?: unknown }).error;
        } catch {
          error = undefined;
        }
        // Some classes are valid on some fields (a long description, -0): those may pass, with a body.
        const refused = res.status >= 400;
        // A route that is off (x402 without wallets.payments) answers its 503 whatever the body.
        const off = res.status === 503 && typeof error === 'string' && error.endsWith('_NOT_CONFIGURED');
        const problems = [
          res.status >= 500 && !off ? `status ${res.status}` : '',
          // Never taken; refused before the body is read (a rate limit, a route that is off) is fine.
          body.refusedField === undefined ||
          (refused && (res.status !== 400 || (typeof error === 'string' && error.includes(body.refusedField))))
            ? ''
            : `not refused with a 400 naming ${body.refusedField}`,
          text.length === 0 ? 'empty body' : '',
          !refused || (typeof error === 'string' && error.length > 0) ? '' : `no {error} in ${JSON.stringify(text.slice(0, 80))}`,
          res.headers.get('cf-ray') ? '' : 'no CF-RAY',
          cpuMs < budgetMs ? '' : `${Math.round(cpuMs)} ms of CPU (bound ${Math.round(budgetMs)})`,
          wallMs < EACH_WALL_MS ? '' : `${Math.round(wallMs)} ms`,
        ].filter(Boolean);
        if (attempt < ATTEMPTS && problems.length === 1 && cpuMs >= budgetMs) continue;
        if (problems.length) failures.push(`${scope} ${body.label}: ${problems.join(', ')} (${text.slice(0, 120)})`);
        break;
      }
  return failures;
}

// The route table is the same on every backend: read it once, to name a test per route.
const probe = await startTestApp({ config: CONFIG });
const ROUTES = bodyRoutes(probe);
await probe.close();

test('the route table lists the JSON routes (a sanity check of the enumeration)', () => {
  const names = ROUTES.map((r) => `${r.method} ${r.path}`);
  expect(names).toContain('POST /api/v1/chat/completions');
  expect(names).toContain('POST /api/v1/image/upscale');
  expect(names).toContain('POST /api/v1/admin/accounts/:accountId/credits');
  expect(ROUTES.length).toBeGreaterThan(15);
});

for (const backend of BACKENDS) {
  describe(`hostile bodies on every body route, ${backend.name}`, () => {
    let t: TestApp;
    const keys: Record<string, string> = {};
    let models: { id: string; type: string }[] = [];

    beforeAll(async () => {
      t = await startTestApp({ backend, config: CONFIG });
      keys.ADMIN = t.adminKey;
      const created = await t.request('/api_keys', { method: 'POST', json: { apiKeyType: 'INFERENCE', description: 'hostile' } });
      keys.INFERENCE = ((await created.json()) as { data: { apiKey: string } }).data.apiKey;
      models = ((await (await t.request('/models?type=all')).json()) as { data: { id: string; type: string }[] }).data;
    });
    // Closing writes the request log of thousands of hostile requests first: over 5 s on Postgres here.
    afterAll(() => t.close(), 30_000);

    for (const route of ROUTES) {
      test(`${route.method} ${route.path}: no hostile body is a 5xx or empty, every refusal is {error} with CF-RAY, each in under ${EACH_CPU_MS} ms of CPU`, async () => {
        const model = modelFor(route, models);
        const bodies = hostileBodies(route.schema, { maxBodyBytes: MAX_BODY_BYTES, base: model ? { model } : {} });
        expect(await probeRoute(t, route, keys, bodies, EACH_CPU_MS)).toEqual([]);
      }, 120_000);

      // Validation does not depend on the storage backend: one run is enough.
      if (backend === BACKENDS[0])
        test(`${route.method} ${route.path}: wide arrays (up to 100,000 elements in every array field) are answered in under ${WIDE_CPU_MS} ms of CPU plus twice their parse each`, async () => {
          const model = modelFor(route, models);
          const bodies = wideBodies(route.schema, { maxBodyBytes: MAX_BODY_BYTES, base: model ? { model } : {} });
          expect(await probeRoute(t, route, keys, bodies, WIDE_CPU_MS, { collectFirst: true })).toEqual([]);
        }, 120_000);
    }
  });
}
