/**
 * The bench upstream's answers for the newer families, precomputed: `/audio/speech` (a WAV),
 * `/responses` (an OpenAI Responses event stream of 50 text deltas, what a bare proxy relays
 * from an upstream that speaks that API; svc builds the same events from the chat stream) and
 * `/rpc` (a JSON-RPC node answering the bench's batch in order). Media jobs have their own
 * upstream (bench/servers/upstream-jobs.ts).
 */
import { answerOf } from '../lib/rpc-calls';
import { tone, wav } from '../lib/wav';
import { concat, contentAt, USAGE } from './upstream-bytes';

/** Calls in the bench's JSON-RPC batch. */
export const RPC_BATCH_SIZE = 10;

/** One second of 24 kHz speech (48 KB), what a TTS upstream answers a short sentence with. */
const SPEECH = wav(tone(1, 24_000), 24_000);

const encoder = new TextEncoder();
const created = Math.floor(Date.now() / 1000);
const event = (obj: { type: string }) => encoder.encode(`event: ${obj.type}\ndata: ${JSON.stringify(obj)}\n\n`);

/** A Responses stream of `chunks` text deltas, with the events OpenAI sends around them. */
function responsesStream(chunks: number): Uint8Array<ArrayBuffer> {
  const deltas = Array.from({ length: chunks }, (_, i) => contentAt(i, chunks));
  const text = deltas.join('');
  const item = { id: 'msg_bench', type: 'message', role: 'assistant', status: 'in_progress', content: [] as unknown[] };
  const part = { type: 'output_text', text: '', annotations: [] };
  const shell = { id: 'resp_bench', object: 'response', created_at: created, model: 'bench-upstream', status: 'in_progress', output: [] };
  const at = { item_id: item.id, output_index: 0, content_index: 0 };
  let n = 0;
  const seq = <T extends { type: string }>(obj: T) => event({ ...obj, sequence_number: n++ });
  const done = { ...item, status: 'completed', content: [{ ...part, text }] };
  const usage = { input_tokens: USAGE.prompt_tokens, output_tokens: USAGE.completion_tokens, total_tokens: USAGE.total_tokens };
  return concat([
    seq({ type: 'response.created', response: shell }),
    seq({ type: 'response.in_progress', response: shell }),
    seq({ type: 'response.output_item.added', output_index: 0, item }),
    seq({ type: 'response.content_part.added', ...at, part }),
    ...deltas.map((delta) => seq({ type: 'response.output_text.delta', ...at, delta })),
    seq({ type: 'response.output_text.done', ...at, text }),
    seq({ type: 'response.content_part.done', ...at, part: { ...part, text } }),
    seq({ type: 'response.output_item.done', output_index: 0, item: done }),
    seq({ type: 'response.completed', response: { ...shell, status: 'completed', output: [done], usage } }),
  ]);
}

let responses = responsesStream(50);
const RPC_ANSWER = JSON.stringify(Array.from({ length: RPC_BATCH_SIZE }, (_, i) => answerOf(i)));

/** Rebuilds the Responses stream for `chunks` deltas (the runner's shape). */
export function shapeFamilies(chunks: number) {
  responses = responsesStream(chunks);
}

/** Answers a family's call, or null when `path` is none of theirs. */
export async function familyCall(req: Request, path: string): Promise<Response | null> {
  if (path.endsWith('/audio/speech')) {
    await req.arrayBuffer();
    return new Response(SPEECH, { headers: { 'content-type': 'audio/wav' } });
  }
  if (path.endsWith('/responses')) {
    await req.arrayBuffer();
    return new Response(responses, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } });
  }
  if (path.endsWith('/rpc')) {
    await req.arrayBuffer();
    return new Response(RPC_ANSWER, { headers: { 'content-type': 'application/json' } });
  }
  return null;
}
