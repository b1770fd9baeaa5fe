/**
 * `bun bench/responses-encode.ts`: the CPU and the objects one `/responses` stream's encoding
 * costs, alone: the bench upstream's 50 content chunks (a `<think>` block, then words), parsed
 * once as the proxy hands them over, encoded as the Responses API's typed events by
 * `ResponsesStreamEncoder` (start, a chunk each, end with usage and cost). No pipeline and no
 * I/O, so the figure moves only with src/responses' own code.
 *
 * Flags: --streams N (default 20000), --alloc (objects allocated per stream by JSC type, over a
 * window with no collection: bench/lib/alloc-window.ts), --profile (JavaScriptCore's sampling
 * profiler over the measured window; the CPU figure then includes the profiler's cost).
 */
import { ResponsesStreamEncoder } from '../src/responses/stream-encoder';
import { responseShell } from '../src/responses/response';
import type { ChatChunk } from '../src/stream/wire';
import { allocationWindow } from './lib/alloc-window';
import { profileWindow } from './lib/window-profile';
import { contentFrames, USAGE } from './servers/upstream-bytes';

const argv = Bun.argv.slice(2);
const num = (name: string, dflt: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : dflt);
const streams = num('--streams', 20_000);

const decoder = new TextDecoder();
// The chunks as the proxy's decoder hands them to the encoder: parsed once, the same objects every stream.
const CHUNKS: ChatChunk[] = contentFrames(50).map((f) => JSON.parse(decoder.decode(f).slice('data: '.length)) as ChatChunk);
const LAST = { ...CHUNKS[0]!, choices: [], usage: USAGE, cost: { total_usd: '0.000062' } } as ChatChunk;
const SHELL = responseShell(
  { model: 'bench', input: 'Say hello.', max_output_tokens: 64, stream: true } as never,
  'resp_bench',
  'bench',
  1_800_000_000,
);

let bytes = 0;
/** One stream's events, as the proxy gathers them. */
function one(i: number): void {
  const encoder = new ResponsesStreamEncoder(SHELL, `req${i}`, () => undefined);
  let out = encoder.start();
  for (const chunk of CHUNKS) out += encoder.chunk(chunk);
  out += encoder.end(LAST);
  bytes = out.length;
}
async function run(n: number): Promise<void> {
  for (let i = 0; i < n; i++) one(i);
}

await run(2000);
if (argv.includes('--alloc')) {
  const a = await allocationWindow(run, num('--alloc-streams', 200));
  process.stdout.write(
    `allocated per stream (${a.requests} streams, no collection in the window): ${a.objectsTotal} objects; ` +
      `${a.objects
        .slice(0, 12)
        .map(([t, c]) => `${t} ${c}`)
        .join(', ')}\n`,
  );
}
Bun.gc(true);
const cpu0 = process.cpuUsage();
if (argv.includes('--profile')) await profileWindow(() => run(streams));
else await run(streams);
const cpu = process.cpuUsage(cpu0);
const us = (cpu.user + cpu.system) / streams;
process.stdout.write(`responses stream encoding (50 chunks, ${bytes} chars out): ${us.toFixed(2)} us CPU per stream, ${streams} streams\n`);
