/**
 * `bun bench/tools/embeddings-respond.ts`: CPU of turning one upstream `/embeddings` answer (1,024
 * floats, the in-process harness's) into the client's response bytes, with no app around
 * it. "parse + stringify" is what svc did before the pass-through (JSON.parse, rebuild,
 * JSON.stringify); the others are the pass-through for each encoding pair. Variants run
 * interleaved in rounds; min and median of the rounds are printed.
 *
 * Flags: --rounds N (default 8), --iterations N per round (default 2000).
 */
import { base64Float32 } from '../../src/stream/float32';
import { embeddingResponse } from '../../src/embeddings/respond';
import type { EmbeddingRequest } from '../../src/embeddings/schema';
import type { ModelEntry } from '../../src/models/catalog';
import { parseEmbeddingsAnswer } from '../../providers/openai-compatible/embeddings-answer';
import { embeddingsAnswer } from '../servers/upstream-bytes';
import { percentile } from '../lib/stats';

const argv = Bun.argv.slice(2);
const num = (name: string, dflt: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : dflt);
const rounds = num('--rounds', 8);
const iterations = num('--iterations', 2000);

const FLOATS = embeddingsAnswer();
const upstreamFloats = JSON.parse(FLOATS) as { data: { index: number; embedding: number[] }[]; usage: { prompt_tokens: number } };
const BASE64 = JSON.stringify({
  ...upstreamFloats,
  data: upstreamFloats.data.map((d) => ({ ...d, embedding: base64Float32(d.embedding) })),
});
const model = { id: 'bench-embed' } as ModelEntry;
const asked = (encoding_format: 'float' | 'base64'): EmbeddingRequest => ({ model: model.id, input: 'x', encoding_format });

/** The response as svc built it before: parse everything, rebuild, serialise everything. */
function parseAndStringify(text: string, req: EmbeddingRequest): string {
  const upstream = JSON.parse(text) as typeof upstreamFloats;
  const base64 = req.encoding_format === 'base64';
  const tokens = upstream.usage.prompt_tokens;
  return JSON.stringify({
    object: 'list',
    data: upstream.data.map((v, i) => ({
      object: 'embedding',
      index: typeof v.index === 'number' ? v.index : i,
      embedding: base64 ? base64Float32(v.embedding) : v.embedding,
    })),
    model: model.id,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
}

/** The pass-through: scan the answer, splice its vector text into the response. */
function passThrough(text: string, req: EmbeddingRequest): string {
  const result = parseEmbeddingsAnswer(text, req.encoding_format ?? 'float');
  return embeddingResponse(result, model, result.usage?.prompt_tokens ?? 0);
}

const variants: [string, () => unknown][] = [
  ['float, parse + stringify (before)', () => Buffer.from(parseAndStringify(FLOATS, asked('float')))],
  ['float, pass-through', () => Buffer.from(passThrough(FLOATS, asked('float')))],
  ['base64 from floats, before', () => Buffer.from(parseAndStringify(FLOATS, asked('base64')))],
  ['base64 from floats, converted', () => Buffer.from(passThrough(FLOATS, asked('base64')))],
  ['base64, pass-through', () => Buffer.from(passThrough(BASE64, asked('base64')))],
];

const samples = new Map<string, number[]>(variants.map(([name]) => [name, []]));
for (const [, run] of variants) for (let i = 0; i < 200; i++) run();
for (let round = 0; round < rounds; round++)
  for (const [name, run] of variants) {
    Bun.gc(false);
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < iterations; i++) run();
    const cpu = process.cpuUsage(cpu0);
    samples.get(name)!.push((cpu.user + cpu.system) / iterations);
  }
for (const [name, us] of samples)
  process.stdout.write(
    `${name.padEnd(36)} min ${Math.min(...us).toFixed(1)} us, median ${percentile(us, 50).toFixed(1)} us CPU per answer\n`,
  );
