import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Type as T } from '@sinclair/typebox';
import { asArrivedSchema } from '../../src/http/body-check';
import { startTestApp, type TestApp } from '../helpers/app';

/**
 * A body that fails its route's schema is refused before Elysia copies it onto the schema
 * (src/gates/body-check.ts): at its first wrong element, with the answer validation gives.
 * Process CPU per answer, the least of five (a garbage collection, a compile or another helper's
 * load can land in any one; a cost that is really there is there every time). Measured here: 1 to 3.5 ms for
 * 100,000 wrong elements (what JSON.parse of the body costs); 7 to 36 ms before the check. The
 * bound leaves room for a machine whose other core is busy (the process's CPU includes its GC threads).
 */
const CPU_MS = 25;
const TRIES = 5;
const MODEL = 'llama-3.3-70b';
const wide = (element: string, count = 99_990) => `[${Array(count).fill(element).join(',')}]`;

async function leastCpu(send: () => Promise<Response>) {
  let least = Infinity;
  let answer: { status: number; body: { error?: string; details?: Record<string, unknown> } } | undefined;
  for (let i = 0; i < TRIES; i++) {
    Bun.gc(true); // the previous wide body's garbage is not this answer's
    const before = process.cpuUsage();
    const res = await send();
    const body = (await res.json()) as { error?: string };
    const used = process.cpuUsage(before);
    least = Math.min(least, (used.user + used.system) / 1000);
    answer = { status: res.status, body };
  }
  return { cpuMs: least, ...answer! };
}

describe('wide bodies of wrong elements are refused at the first one, as validation refuses a short one', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ config: { maxBodyBytes: 4 * 1024 * 1024 } });
  });
  afterAll(() => t.close());

  const post = (path: string, body: string, key?: string | null) =>
    t.request(path, { method: 'POST', body, key, headers: { 'content-type': 'application/json' } });

  const CASES: [string, string, (items: string) => string][] = [
    ['chat messages of strings', '"x"', (items) => `{"model":"${MODEL}","messages":${items}}`],
    ['chat messages of numbers', '1', (items) => `{"model":"${MODEL}","messages":${items}}`],
    ['chat messages without a role', '{"content":"x"}', (items) => `{"model":"${MODEL}","messages":${items}}`],
    [
      'chat content parts without a type',
      '{"text":"x"}',
      (items) => `{"model":"${MODEL}","messages":[{"role":"user","content":${items}}]}`,
    ],
    ['/responses input of strings', '"x"', (items) => `{"model":"${MODEL}","input":${items}}`],
    ['/responses input of items without a role', '{"a":1}', (items) => `{"model":"${MODEL}","input":${items}}`],
  ];
  for (const [name, element, bodyOf] of CASES)
    test(`${name}: the 400 of a 20-element body, in under ${CPU_MS} ms of CPU`, async () => {
      const path = name.startsWith('/responses') ? '/responses' : '/chat/completions';
      const short = await post(path, bodyOf(wide(element, 20)));
      const expected = await short.json();
      expect(short.status).toBe(400);
      const { cpuMs, status, body } = await leastCpu(() => post(path, bodyOf(wide(element))));
      expect(status).toBe(400);
      expect(body).toEqual(expected);
      expect(cpuMs).toBeLessThan(CPU_MS);
    });

  test('an anonymous caller still gets 401 first, whatever the body (wrong elements, an array past its cap)', async () => {
    for (const body of [
      `{"model":"${MODEL}","messages":${wide('1')}}`,
      `{"model":"${MODEL}","messages":[{"role":"user","content":"hi"}],"stop":${wide('"x"')}}`,
    ]) {
      const res = await post('/chat/completions', body, null);
      expect(res.status).toBe(401);
    }
    const capped = await post(
      '/chat/completions',
      `{"model":"${MODEL}","messages":[{"role":"user","content":"hi"}],"stop":${wide('"x"')}}`,
    );
    expect(await capped.json()).toEqual({
      error: 'Invalid body parameters: stop: must have at most 4 items',
      details: { _errors: [], stop: { _errors: ['must have at most 4 items'] } },
    });
  });

  test('a body that is not an object is a 400 naming the body on account, upload and quote routes too (the copy made it an object)', async () => {
    for (const path of ['/api_keys', '/audio/voices', '/augment/text-parser', '/video/quote'])
      for (const body of ['[1,2]', '"hi"', wide('1')]) {
        const res = await post(path, body);
        expect(res.status).toBe(400);
        expect(await res.json()).toEqual({
          error: 'Invalid body: expected a JSON object',
          details: { _errors: [], body: { _errors: ['Expected an object'] } },
        });
      }
  });

  test('what the copy drops or fills still passes: unknown top-level fields, fields with defaults', async () => {
    const res = await t.request('/chat/completions', {
      method: 'POST',
      json: { model: MODEL, messages: [{ role: 'user', content: 'hi', extra: 1 }], unknown_field: true, max_tokens: 5 },
    });
    expect(res.status).toBe(200);
  });
});

describe('the schema as a body arrives', () => {
  test('closed objects admit unknown members, at any depth; a member with a default is not required', () => {
    const schema = T.Object(
      { a: T.String(), b: T.String({ default: 'x' }), inner: T.Object({ c: T.Number() }, { additionalProperties: false }) },
      { additionalProperties: false },
    );
    const lenient = asArrivedSchema(schema)!;
    expect(lenient.additionalProperties).toBeUndefined();
    expect(lenient.required).toEqual(['a', 'inner']);
    expect(lenient.properties.inner.additionalProperties).toBeUndefined();
    // The route's own schema is left as it is.
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(['a', 'b', 'inner']);
  });

  test('a schema with a reference or a file is not covered (Elysia validates it alone)', () => {
    expect(asArrivedSchema(T.Object({ r: T.Ref('Other') }))).toBeNull();
  });
});
