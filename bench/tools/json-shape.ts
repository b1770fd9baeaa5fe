/**
 * `bun bench/tools/json-shape.ts`: what the JSON shape check (src/http/json-shape.ts) adds to a
 * request. Every JSON body is scanned once for depth and item counts before JSON.parse; this
 * prints the scan's cost against JSON.parse's on a typical ~2 KB chat body and on larger ones,
 * and the whole read (text + scan + parse) against the native `Request.json()` it replaced.
 * Scan and parse times are the best of 20 rounds; on a shared machine compare the ratios, not the microseconds.
 */
import { jsonShapeProblem, parseJsonBody } from '../../src/http/json-shape';

const chat = (chars: number) =>
  JSON.stringify({
    model: 'qwen3-4b',
    messages: [
      { role: 'system', content: 'You are a helpful assistant. Answer briefly and cite "sources" when you can.' },
      { role: 'user', content: 'Summarise the history of Rome in three sentences. '.repeat(Math.max(1, Math.round(chars / 51))) },
    ],
    temperature: 0.7,
    max_tokens: 512,
    stream: true,
    tools: [
      {
        type: 'function',
        function: {
          name: 'search',
          description: 'Search the web',
          parameters: { type: 'object', properties: { q: { type: 'string' }, n: { type: 'integer' } }, required: ['q'] },
        },
      },
    ],
  });

/** µs per call of `fn`: the best of 20 rounds of `n / 20` calls (the least disturbed by other processes). */
function perCall(fn: () => unknown, n: number): number {
  for (let i = 0; i < n / 10; i++) fn();
  let best = Infinity;
  for (let round = 0; round < 20; round++) {
    const t0 = performance.now();
    for (let i = 0; i < n / 20; i++) fn();
    best = Math.min(best, ((performance.now() - t0) * 1000 * 20) / n);
  }
  return best;
}

/** Mean µs per request of `read` on a fresh Request of `body`, `n` times. */
async function perRead(body: string, read: (r: Request) => Promise<unknown>, n: number): Promise<number> {
  const make = () => new Request('http://localhost/', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
  for (let i = 0; i < n / 10; i++) await read(make());
  let total = 0;
  for (let i = 0; i < n; i++) {
    const r = make();
    const t0 = performance.now();
    await read(r);
    total += performance.now() - t0;
  }
  return (total * 1000) / n;
}

const arrays = JSON.stringify({ model: 'text-embedding-bge-m3', input: Array.from({ length: 64 }, (_, i) => [i, i + 1, i + 2, i + 3]) });
for (const [label, body, n] of [
  ['chat body', chat(1_400), 50_000],
  ['chat body', chat(10_000), 10_000],
  ['chat body', chat(200_000), 500],
  ['embeddings of token arrays', arrays, 20_000],
] as const) {
  if (jsonShapeProblem(body)) throw new Error(`${label} refused`);
  const scan = perCall(() => jsonShapeProblem(body), n);
  const parse = perCall(() => JSON.parse(body), n);
  const native = await perRead(body, (r) => r.json(), Math.min(n, 5_000));
  const checked = await perRead(body, (r) => r.text().then(parseJsonBody), Math.min(n, 5_000));
  process.stdout.write(
    `${label} (${body.length} bytes): scan ${scan.toFixed(2)} us, JSON.parse ${parse.toFixed(2)} us (scan/parse ${(scan / parse).toFixed(2)}); ` +
      `read: native json() ${native.toFixed(2)} us, text + scan + parse ${checked.toFixed(2)} us\n`,
  );
}
