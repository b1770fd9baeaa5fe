// CPU per chunk of the strip_thinking_response transform: `bun plugins/strip_thinking_response/bench.ts`.
// Tokens like a real stream (a think block, then an answer, multi-byte text, stray '<').
import type { ChatChunk } from '../../src/stream/wire';
import { stripThinkStream } from './transform';

const TOKENS = ['<', 'think', '>', ' plan', ' é', '😀', '</', 'think', '>\n', 'Answer', ' a', ' <', ' b', ' wörld', ' 🎉'];
const N = 200_000;
const chunks: ChatChunk[] = [];
for (let i = 0; i < N; i++)
  chunks.push({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta: { content: TOKENS[i % TOKENS.length] }, finish_reason: null }],
  });

const cpu0 = process.cpuUsage();
const t0 = performance.now();
let out = 0;
const transformer = stripThinkStream();
const count = () => void out++;
for (const chunk of chunks) transformer.transform(chunk, count);
transformer.flush?.(count);
const wall = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
console.log(
  JSON.stringify({
    chunks: N,
    out,
    usPerChunkWall: +((wall * 1000) / N).toFixed(3),
    usPerChunkCpu: +((cpu.user + cpu.system) / N).toFixed(3),
  }),
);
