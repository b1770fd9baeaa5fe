/**
 * CPU per streamed chunk of the native providers' translations (Anthropic Messages and Gemini
 * SSE to chat-completions chunks) against the OpenAI-compatible passthrough, in one run and
 * one process: the same answer (CHUNKS text deltas, then the finish and usage events) in each
 * provider's wire format, one event per network read, goes through what a request does, the
 * provider's stream (raw bytes for OpenAI-compatible, translatedStream for the others) and
 * the proxy's zero-copy tap, and is read to the end. Rounds alternate the three so machine
 * noise hits them alike; the median CPU time per chunk and the ratio to the passthrough are
 * printed. Run: `npx bun bench/tools/native-translation.ts [--streams 400] [--rounds 7]`.
 */
import { anthropicStream } from '../../providers/anthropic/stream';
import { geminiStream } from '../../providers/gemini/stream';
import { translatedStream } from '../../providers/translate/stream';
import { proxyStream } from '../../src/stream/proxy';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const STREAMS = arg('streams', 400);
const ROUNDS = arg('rounds', 7);
const CHUNKS = 200;
const WORD = ' token';

const enc = new TextEncoder();
const sse = (data: unknown, event?: string) => enc.encode(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);

/** The OpenAI-compatible answer: what the upstream sends is what the client gets. */
function openaiEvents(): Uint8Array[] {
  const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm' };
  const out = [sse({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })];
  for (let i = 0; i < CHUNKS; i++) out.push(sse({ ...base, choices: [{ index: 0, delta: { content: WORD }, finish_reason: null }] }));
  out.push(sse({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
  out.push(sse({ ...base, choices: [], usage: { prompt_tokens: 10, completion_tokens: CHUNKS, total_tokens: 10 + CHUNKS } }));
  out.push(enc.encode('data: [DONE]\n\n'));
  return out;
}

/** The same answer as Anthropic's Messages stream. */
function anthropicEvents(): Uint8Array[] {
  const usage = { input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const out = [
    sse(
      {
        type: 'message_start',
        message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, usage },
      },
      'message_start',
    ),
    sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start'),
  ];
  for (let i = 0; i < CHUNKS; i++)
    out.push(sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: WORD } }, 'content_block_delta'));
  out.push(sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop'));
  out.push(
    sse(
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: CHUNKS } },
      'message_delta',
    ),
  );
  out.push(sse({ type: 'message_stop' }, 'message_stop'));
  return out;
}

/** The same answer as Gemini's `streamGenerateContent?alt=sse`. */
function geminiEvents(): Uint8Array[] {
  const base = { modelVersion: 'm', responseId: 'r' };
  const out: Uint8Array[] = [];
  for (let i = 0; i < CHUNKS; i++)
    out.push(
      sse({
        ...base,
        candidates: [{ index: 0, content: { role: 'model', parts: [{ text: WORD }] } }],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: i + 1 },
      }),
    );
  out.push(
    sse({
      ...base,
      candidates: [{ index: 0, content: { role: 'model', parts: [] }, finishReason: 'STOP' }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: CHUNKS },
    }),
  );
  return out;
}

/** An upstream response that delivers `events` one per read. */
function upstream(events: Uint8Array[]): Response {
  let i = 0;
  return new Response(
    new ReadableStream<Uint8Array>({
      pull(c) {
        if (i < events.length) c.enqueue(events[i++] as Uint8Array);
        else c.close();
      },
    }),
  );
}

type Variant = { name: string; events: Uint8Array[]; provider(res: Response): Promise<ReadableStream<Uint8Array>> };
const noop = () => {};
const VARIANTS: Variant[] = [
  { name: 'openai-compatible passthrough', events: openaiEvents(), provider: async (res) => res.body as ReadableStream<Uint8Array> },
  {
    name: 'anthropic translation',
    events: anthropicEvents(),
    provider: (res) => translatedStream(res, anthropicStream(0), new AbortController(), noop),
  },
  {
    name: 'gemini translation',
    events: geminiEvents(),
    provider: (res) => translatedStream(res, geminiStream(0, 'id'), new AbortController(), noop),
  },
];

/** One stream through the provider and the proxy, read to its end; the bytes the client got. */
async function oneStream(v: Variant): Promise<number> {
  const body = proxyStream({
    upstream: await v.provider(upstream(v.events)),
    transforms: [],
    leading: [],
    pingIntervalMs: 3_600_000,
    abortUpstream: noop,
    finish: async (outcome) => {
      if (outcome.error) throw new Error(`bench stream failed: ${outcome.error}`);
      return null;
    },
  });
  let bytes = 0;
  for await (const chunk of body) bytes += chunk.length;
  return bytes;
}

/** CPU microseconds per chunk over STREAMS streams of `v`. */
async function measure(v: Variant): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < STREAMS; i++) await oneStream(v);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / (STREAMS * CHUNKS);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

for (const v of VARIANTS) await measure(v); // warm-up: JIT tiers, lazy module state
const samples = new Map<string, number[]>(VARIANTS.map((v) => [v.name, []]));
for (let r = 0; r < ROUNDS; r++) for (const v of VARIANTS) samples.get(v.name)!.push(await measure(v));

const base = median(samples.get(VARIANTS[0]!.name)!);
console.log(
  `CPU per streamed chunk (${STREAMS} streams x ${CHUNKS} chunks, median of ${ROUNDS} rounds, ${process.platform}/${process.arch}, Bun ${Bun.version})`,
);
for (const v of VARIANTS) {
  const us = median(samples.get(v.name)!);
  console.log(`  ${v.name.padEnd(32)} ${us.toFixed(2).padStart(6)} us/chunk   x${(us / base).toFixed(2)}`);
}
