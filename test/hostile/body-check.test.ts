import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Type as T } from '@sinclair/typebox';
import { asArrivedSchema } from '../../src/http/body-check';
import { join } from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app';
import { CASES, type CaseReading } from './body-check-cpu';

/**
 * A body that fails its route's schema is refused before Elysia copies it onto the schema
 * (src/gates/body-check.ts): at its first wrong element, with the answer validation gives.
 * Process CPU per answer, the least of five, read in a child process of its own
 * (body-check-cpu.ts): in the suite's shared process other files' timers and garbage are counted
 * too. The bound is relative to `JSON.parse` of the same body in the same process, which every
 * answer pays and which differs by machine (100,000 elements: 1-3.5 ms on an Intel Xeon, where
 * the answers took the same and 7 to 36 ms before the check; 7-30 ms on an AMD EPYC, where a
 * fixed 25 ms bound failed on the parse alone). Twice the parse plus 5 ms leaves room for a
 * machine whose other core is busy (the process's CPU includes its GC threads) and still fails
 * a validation that walks every element (several times the parse).
 */
const PARSE_FACTOR = 2;
const SLACK_MS = 5;
const MODEL = 'llama-3.3-70b';
const wide = (element: string, count = 99_990) => `[${Array(count).fill(element).join(',')}]`;

describe('wide bodies of wrong elements, measured in a process of their own', () => {
  let readings: Record<string, CaseReading>;
  beforeAll(async () => {
    const child = Bun.spawn([process.execPath, join(import.meta.dir, 'body-check-cpu.ts')], {
      stdout: 'pipe',
      stderr: 'inherit',
      env: process.env,
    });
    const out = await new Response(child.stdout).text();
    expect(await child.exited).toBe(0);
    readings = JSON.parse(out);
  }, 60_000);

  for (const [name] of CASES)
    test(`${name}: the 400 of a 20-element body, in under ${PARSE_FACTOR}x the CPU of parsing it + ${SLACK_MS} ms`, () => {
      const { cpuMs, parseMs, wide, short } = readings[name]!;
      expect(short.status).toBe(400);
      expect(wide).toEqual(short);
      expect(cpuMs).toBeLessThan(PARSE_FACTOR * parseMs + SLACK_MS);
    });
});

describe('wide bodies of wrong elements are refused at the first one', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ config: { maxBodyBytes: 4 * 1024 * 1024 } });
  });
  afterAll(() => t.close());

  const post = (path: string, body: string, key?: string | null) =>
    t.request(path, { method: 'POST', body, key, headers: { 'content-type': 'application/json' } });

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
