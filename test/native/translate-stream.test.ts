import { describe, expect, test } from 'bun:test';
import { anthropicStream } from '../../providers/anthropic/stream';
import { geminiStream } from '../../providers/gemini/stream';
import { translatedStream } from '../../providers/translate/stream';
import { readSseEvents } from '../../src/stream/events';

const enc = new TextEncoder();
const noop = () => {};

const ANTHROPIC = [
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":3,"output_tokens":1}}}\n\n',
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Grüße, "}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"世界 👋"}}\n\n',
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":4}}\n\n',
  'event: message_stop\ndata: {"type":"message_stop"}\n\n',
].join('');

/** A response whose body is `pieces`, one per read. */
const response = (pieces: Uint8Array[]) => {
  let i = 0;
  return new Response(new ReadableStream<Uint8Array>({ pull: (c) => (i < pieces.length ? c.enqueue(pieces[i++]!) : c.close()) }));
};

/** The data payloads of a translated stream. */
async function payloads(body: ReadableStream<Uint8Array>): Promise<string[]> {
  const out: string[] = [];
  for await (const e of readSseEvents(body)) out.push(e.data);
  return out;
}

describe('translated streams', () => {
  test('Anthropic: the same chunks whatever the network split (multi-byte characters and CRLF-free lines cut anywhere)', async () => {
    const bytes = enc.encode(ANTHROPIC);
    const whole = await payloads(await translatedStream(response([bytes]), anthropicStream(7), new AbortController(), noop));
    expect(whole.at(-1)).toBe('[DONE]');
    const content = whole.slice(0, -1).map((d) => JSON.parse(d) as { choices: { delta: { content?: string } }[] });
    expect(content.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Grüße, 世界 👋');
    for (let at = 1; at < bytes.length; at += 7) {
      const split = await payloads(
        await translatedStream(response([bytes.slice(0, at), bytes.slice(at)]), anthropicStream(7), new AbortController(), noop),
      );
      expect(split).toEqual(whole);
    }
  });

  test('Gemini: CRLF-framed events split anywhere give the same chunks', async () => {
    const text =
      ['Hel', 'lo'].map((t) => `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"${t}"}]}}]}\r\n\r\n`).join('') +
      'data: {"candidates":[{"content":{"role":"model","parts":[]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":2,"candidatesTokenCount":2}}\r\n\r\n';
    const bytes = enc.encode(text);
    const whole = await payloads(await translatedStream(response([bytes]), geminiStream(7, 'id'), new AbortController(), noop));
    expect(whole).toHaveLength(6); // role, two deltas, finish, usage, [DONE]
    for (let at = 1; at < bytes.length; at += 5) {
      const split = await payloads(
        await translatedStream(response([bytes.slice(0, at), bytes.slice(at)]), geminiStream(7, 'id'), new AbortController(), noop),
      );
      expect(split).toEqual(whole);
    }
  });

  test('chunks go out as their events arrive: the upstream sends the rest only after the client read the first text', async () => {
    const events = ANTHROPIC.split(/(?<=\n\n)/).map((e) => enc.encode(e));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let i = 0;
    const res = new Response(
      new ReadableStream<Uint8Array>({
        async pull(c) {
          // After the first text delta, nothing more until the client has seen it: a translation that
          // held the answer would never let it through, and the test would time out.
          if (i === 3) await gate;
          if (i < events.length) c.enqueue(events[i++]!);
          else c.close();
        },
      }),
    );
    const reader = (await translatedStream(res, anthropicStream(7), new AbortController(), noop)).getReader();
    const decoder = new TextDecoder();
    let seen = '';
    while (!seen.includes('Grüße')) {
      const { value, done } = await reader.read();
      if (done) throw new Error('ended before the first text');
      seen += decoder.decode(value, { stream: true });
    }
    expect(i).toBe(3);
    release();
    while (!(await reader.read()).done);
    expect(i).toBe(events.length);
  });
});
