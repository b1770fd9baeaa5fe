import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startTestApp, type TestApp } from '../helpers/app';

/**
 * A lone surrogate (`"\ud800"` in the JSON text, which JSON.parse turns into half a UTF-16
 * pair) in a field sent upstream is a 400 naming the field, on every family: no upstream can
 * encode it (a search engine answered 502, which no retry fixes). Surrogate pairs, and an
 * escaped backslash before `ud800`, are text like any other. (Routes without a fixture here
 * are covered by the generator in every-route.test.ts.)
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ config: { rpc: { simulator: true } } });
});
afterAll(() => t.close());

/** POSTs raw JSON text (the escapes must reach the server as written). */
const post = (path: string, text: string) =>
  t.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: text });

const LONE = String.raw`a\ud800b`;
const CASES: [string, string, string][] = [
  ['/augment/search', `{"query":"${LONE}"}`, 'query'],
  ['/augment/scrape', `{"url":"https://example.com/${LONE}"}`, 'url'],
  ['/chat/completions', `{"model":"llama-3.3-70b","messages":[{"role":"user","content":"${LONE}"}]}`, 'messages.0.content'],
  [
    '/chat/completions',
    `{"model":"llama-3.3-70b","messages":[{"role":"user","content":[{"type":"text","text":"\\udc00"}]}]}`,
    'messages.0.content.0.text',
  ],
  ['/responses', `{"model":"llama-3.3-70b","input":"${LONE}"}`, 'input'],
  ['/embeddings', `{"model":"text-embedding-bge-m3","input":["ok","${LONE}"]}`, 'input.1'],
  ['/audio/speech', `{"model":"tts-kokoro","input":"${LONE}","voice":"af_sky"}`, 'input'],
  ['/image/generate', `{"model":"venice-sd35","prompt":"${LONE}"}`, 'prompt'],
  ['/crypto/rpc/svc-sim-mainnet', `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["${LONE}","latest"]}`, 'params.0'],
  ['/characters', `{"name":"${LONE}"}`, 'name'],
];

describe('a lone surrogate in a field sent upstream', () => {
  test.each(CASES)('%s: 400 naming the field (%#)', async (path, text, field) => {
    const res = await post(path, text);
    const body = (await res.json()) as { error: string; details?: unknown };
    expect({ status: res.status, error: body.error }).toEqual({
      status: 400,
      error: expect.stringContaining(`${field} must be well-formed`),
    });
    expect(res.headers.get('cf-ray')).toBeTruthy();
  });

  test('a surrogate pair and an escaped backslash before "ud800" are ordinary text', async () => {
    const pair = await post(
      '/chat/completions',
      String.raw`{"model":"llama-3.3-70b","messages":[{"role":"user","content":"otters \ud83e\udda6 \\ud800"}]}`,
    );
    expect(pair.status).toBe(200);
  });
});
