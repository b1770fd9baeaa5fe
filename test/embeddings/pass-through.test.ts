import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import OpenAI from 'openai';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import type { FixtureUpstream } from '../fixtures/openai-upstream';
import { EMB, startEmbeddingsApp, type EmbeddingsApp } from './helpers';
import { ledgerOf } from '../images/helpers';
import { newCaller } from '../rpc/helpers';

/** Floats as an encoder may write them: exponents, a negative zero, more digits than a double keeps, odd spacing. */
const VECTOR = '[ 1e-7, -0.0,\n      0.12345678901234567, 1E+2,-3.5e-08 ]';
const VECTOR_VALUES = [1e-7, -0, 0.12345678901234567, 100, -3.5e-8];

/** An upstream answer in another key order, pretty-printed, with extra fields holding brackets and escapes. */
const oddAnswer = (vector: string, model: string) =>
  `{\n  "id": "emb-1 ] } \\" [ \\\\",\n  "data": [\n    {\n      "embedding": ${vector},\n` +
  `      "extra": {"nested": [1, {"a": "]}\\u00e9\\\\"}], "flag": true},\n      "index": 0,\n      "object": "embedding"\n    }\n  ],\n` +
  `  "model": ${JSON.stringify(model)},\n  "usage": {"prompt_tokens": 7, "total_tokens": 7, "extra": null}\n}\n`;

/** The answer svc must send for one vector: OpenAI's shape and order, svc's model id and the counted usage. */
const expected = (embedding: string, tokens = 7) =>
  `{"object":"list","data":[{"object":"embedding","index":0,"embedding":${embedding}}],"model":"${EMB}",` +
  `"usage":{"prompt_tokens":${tokens},"total_tokens":${tokens}}}`;

/** Base64 of these little-endian float32 bytes contains a `/`, which some encoders escape as `\/`. */
const SLASHED_BYTES = new Uint8Array([0xfc, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xbf]);
const SLASHED = Buffer.from(SLASHED_BYTES).toString('base64');
const SLASHED_VALUES = Array.from(new Float32Array(SLASHED_BYTES.buffer));

const oneVector = (embedding: string, extra = '') =>
  `{"object":"list","data":[{"object":"embedding","index":0,"embedding":${embedding}${extra}}],"model":"m","usage":{"prompt_tokens":7,"total_tokens":7}}`;

for (const backend of BACKENDS) {
  describe(`POST /embeddings passes the upstream's vectors through, on ${backend.name}`, () => {
    let app: EmbeddingsApp;
    let t: TestApp;
    let a: FixtureUpstream;
    let b: FixtureUpstream;
    let client: OpenAI;

    beforeAll(async () => {
      app = await startEmbeddingsApp(backend);
      ({ t, a, b, client } = app);
    });
    afterAll(() => app.close());

    /** Both replicas answer `/embeddings` with exactly `body`. */
    const upstreamSays = (body: string) => {
      a.set({ embeddingsBody: body });
      b.set({ embeddingsBody: body });
    };
    const embed = (json: unknown) => t.request('/embeddings', { method: 'POST', json });
    const lastSent = (res: Response) => (res.headers.get('x-svc-model-router') === 'a' ? a : b).requests.at(-1)?.body;
    const usd = async () => (await (await t.request('/billing/balance')).json()).balances.usd as number;

    const answers: [string, string][] = [
      ['an ASCII answer', 'upstream-model'],
      ['an answer with non-ASCII text', 'modèle-ü'],
    ];
    for (const [what, model] of answers)
      test(`floats reach the client byte for byte from ${what} in another order, with extra fields and escapes`, async () => {
        upstreamSays(oddAnswer(VECTOR, model));
        const res = await embed({ model: EMB, input: 'hello', encoding_format: 'float' });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toStartWith('application/json');
        expect(await res.text()).toBe(expected(VECTOR));
        expect(lastSent(res)).toMatchObject({ encoding_format: 'float' });
        expect((await ledgerOf(t, res))[0]).toMatchObject({ amountMicros: -7, promptTokens: 7 });
      });

    test("an upstream that counts more tokens than svc: an ample balance pays the upstream's count; one holding svc's count alone is admitted, charged that", async () => {
      upstreamSays(oddAnswer(VECTOR, 'm')); // 7 tokens, where svc counts 1 for "hello"
      const rich = await embed({ model: EMB, input: 'hello' });
      expect((await ledgerOf(t, rich))[0]).toMatchObject({ amountMicros: -7, promptTokens: 7 });
      const tight = await newCaller(t, '0.000001');
      const res = await t.request('/embeddings', { method: 'POST', key: tight.key, json: { model: EMB, input: 'hello' } });
      expect(res.status).toBe(200);
      expect((await ledgerOf(t, res))[0]).toMatchObject({ amountMicros: -1 });
      await t.deps.meter.flush();
      expect((await t.deps.meter.balances(tight.accountId)).USD).toBe(0);
    });

    test('the official SDK reads the passed-through floats exactly (-0 included)', async () => {
      upstreamSays(oddAnswer(VECTOR, 'm'));
      const out = await client.embeddings.create({ model: EMB, input: 'hello', encoding_format: 'float' });
      expect(out.data[0]?.embedding).toEqual(VECTOR_VALUES);
      expect(Object.is(out.data[0]?.embedding[1], -0)).toBe(true);
      expect(out.model).toBe(EMB);
      expect(out.usage).toEqual({ prompt_tokens: 7, total_tokens: 7 });
    });

    test('base64: the upstream is asked for base64 and its string is passed on (a `\\/` unescaped); the SDK decodes it', async () => {
      upstreamSays(oneVector(`"${SLASHED.replaceAll('/', '\\/')}"`));
      const res = await embed({ model: EMB, input: 'hello', encoding_format: 'base64' });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(expected(`"${SLASHED}"`));
      expect(lastSent(res)).toMatchObject({ encoding_format: 'base64' });

      upstreamSays(oneVector(`"${SLASHED}"`, ',"extra":1'));
      const decoded = await client.embeddings.create({ model: EMB, input: 'hello' });
      expect(decoded.data[0]?.embedding).toEqual(SLASHED_VALUES);
    });

    test('an upstream that ignores encoding_format is converted: base64 to floats, floats to float32 base64', async () => {
      upstreamSays(oneVector(`"${SLASHED}"`));
      const floats = await embed({ model: EMB, input: 'hello', encoding_format: 'float' });
      expect(await floats.text()).toBe(expected(JSON.stringify(SLASHED_VALUES)));

      upstreamSays(oneVector('[0.5, -0.25, 1e-7]'));
      const base64 = await embed({ model: EMB, input: 'hello', encoding_format: 'base64' });
      const float32 = Buffer.from(new Float32Array([0.5, -0.25, 1e-7]).buffer).toString('base64');
      expect(await base64.text()).toBe(expected(`"${float32}"`));
    });

    test("several vectors keep the upstream's order and index; a missing index is the position", async () => {
      upstreamSays('{"data":[{"index":1,"embedding":[1]},{"embedding":[2],"index":0},{"embedding":[3]}]}');
      const res = await embed({ model: EMB, input: ['x', 'y', 'z'], encoding_format: 'float' });
      const body = await res.json();
      expect(body.data).toEqual([
        { object: 'embedding', index: 1, embedding: [1] },
        { object: 'embedding', index: 0, embedding: [2] },
        { object: 'embedding', index: 2, embedding: [3] },
      ]);
      expect(body.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
    });

    const malformed: [string, string][] = [
      ['a truncated body', oneVector(VECTOR).slice(0, -20)],
      ['an empty body', ''],
      ['an HTML page', '<html><body>502 Bad Gateway</body></html>'],
      ['text after the document', `${oneVector('[1]')} {}`],
      ['NaN in a vector', oneVector('[0.1, NaN]')],
      ['NaN in a vector of a non-ASCII answer', oneVector('[0.1, NaN]', ',"note":"é"')],
      ['Infinity in a vector', oneVector('[Infinity]')],
      ['a string in a vector', oneVector('[0.1, "0.2"]')],
      ['a nested array', oneVector('[[0.1]]')],
      ['a null vector', oneVector('null')],
      ['an item without embedding', '{"data":[{"index":0}]}'],
      ['an item that is not an object', '{"data":[[0.1]]}'],
      ['data that is not an array', '{"data":{"embedding":[1]}}'],
      ['no data', '{"object":"list"}'],
      ['base64 short of a float', oneVector('"AAA="')],
      ['a string that is not base64', oneVector('"hello world"')],
      ['a control character in a string', '{"id":"a\u0001b","data":[{"embedding":[1]}]}'],
      ['a bad escape', '{"id":"a\\xb","data":[{"embedding":[1]}]}'],
      ['a mismatched bracket', '{"data":[{"embedding":[1}]}'],
    ];
    for (const [what, body] of malformed)
      test(`${what} from every replica: 502, both replicas tried, nothing charged`, async () => {
        upstreamSays(body);
        const before = await usd();
        const tried = a.requests.length + b.requests.length;
        const res = await embed({ model: EMB, input: 'x', encoding_format: 'float' });
        expect(res.status).toBe(502);
        expect((await res.json()).error).toContain('Upstream error');
        expect(a.requests.length + b.requests.length).toBe(tried + 2);
        expect(await ledgerOf(t, res)).toHaveLength(0);
        expect(await usd()).toBe(before);
      });

    test('an upstream that refuses base64 with a 400 is asked again for floats, converted, and asked for floats from then on', async () => {
      a.set({ floatsOnly: true });
      b.set({ floatsOnly: true });
      const from = [a.requests.length, b.requests.length] as const;
      const float32 = Buffer.from(new Float32Array([1 / 2, 1 / 3, 1 / 4]).buffer).toString('base64');
      for (let i = 0; i < 4; i++) {
        const res = await embed({ model: EMB, input: 'x', encoding_format: 'base64', dimensions: 3 });
        expect(res.status).toBe(200);
        expect((await res.json()).data[0].embedding).toBe(float32);
      }
      const asked = [...a.requests.slice(from[0]), ...b.requests.slice(from[1])].map((r) => r.body.encoding_format);
      // Each replica is refused once, then asked for floats only: 4 answers, at most 2 refusals.
      expect(asked.filter((e) => e === 'float')).toHaveLength(4);
      expect(asked.filter((e) => e === 'base64').length).toBeLessThanOrEqual(2);
      expect(asked.filter((e) => e === 'base64').length).toBeGreaterThanOrEqual(1);
    });

    // Over Bun's 16 KB cork buffer a string body would send every header piece in its own
    // system call: svc sends it as a stream, chunked (src/http/large-body.ts).
    test('an answer larger than 16 KB arrives whole over the socket as a chunked stream with its headers, compressed or not', async () => {
      const vector = `[${Array.from({ length: 3000 }, (_, i) => (i / 7).toFixed(9)).join(',')}]`;
      upstreamSays(oneVector(vector));
      const url = `http://127.0.0.1:${t.app.server?.port}/api/v1/embeddings`;
      const post = (encoding: string) =>
        fetch(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json', 'accept-encoding': encoding },
          body: JSON.stringify({ model: EMB, input: 'x', encoding_format: 'float' }),
        });
      const plain = await post('identity');
      expect(plain.status).toBe(200);
      const text = await plain.text();
      expect(text.length).toBeGreaterThan(16 * 1024);
      expect(plain.headers.get('transfer-encoding')).toBe('chunked');
      expect(plain.headers.get('content-type')).toStartWith('application/json');
      expect(plain.headers.get('x-svc-balance-usd')).not.toBeNull();
      expect(text).toContain(`"embedding":${vector}}`);
      const gzipped = await post('gzip');
      expect(gzipped.headers.get('content-encoding')).toBe('gzip');
      expect(await gzipped.text()).toBe(text);
    });
  });
}

describe('the simulator answers in the asked encoding', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  test("base64 is the float32 of the float answer's vector", async () => {
    const embed = async (encoding_format: string) => {
      const res = await t.request('/embeddings', {
        method: 'POST',
        json: { model: 'text-embedding-bge-m3', input: 'cats', encoding_format },
      });
      expect(res.status).toBe(200);
      return (await res.json()).data[0].embedding;
    };
    const floats = (await embed('float')) as number[];
    const base64 = (await embed('base64')) as string;
    expect(floats).toHaveLength(1024);
    expect(base64).toBe(Buffer.from(new Float32Array(floats).buffer).toString('base64'));
  });
});
