import { describe, expect, test } from 'bun:test';
import { responseShell } from '../../src/responses/response';
import type { ResponsesRequest } from '../../src/responses/schema';
import { ResponsesStreamEncoder } from '../../src/responses/stream-encoder';
import { utf8 } from '../../src/stream/encoder';
import { readerStream } from '../../src/stream/prefetched';
import type { Source } from '../../src/stream/sources';
import { transformSource } from '../../src/stream/sources';
import { splicedSource, type ByteOut, type KeptContent } from '../../src/stream/spliced-source';

/** Counts the events written from their bytes, to tell the byte path ran. */
class CountingEncoder extends ResponsesStreamEncoder {
  spliced = 0;
  override splice(bytes: Uint8Array, start: number, end: number, out: ByteOut, kept: KeptContent): boolean {
    const text = super.splice(bytes, start, end, out, kept);
    if (text) this.spliced++;
    return text;
  }
}

const shell = () => responseShell({ model: 'm', input: 'Hi', stream: true } as ResponsesRequest, 'resp_x', 'm', 1);
const NOTHING = readerStream({ read: async () => ({ done: true }), cancel: async () => {} });
const HEAD = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":';
const TAIL = '},"logprobs":null,"finish_reason":null}]}';

/** A text delta event whose content is written as the upstream wrote it (`json`: a JSON string, escapes and all). */
const textEvent = (json: string) => `data: ${HEAD}${json}${TAIL}\n\n`;
const event = (obj: unknown) => `data: ${JSON.stringify(obj)}\n\n`;
const chunkOf = (delta: unknown, finish: string | null = null) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
});
const USAGE = event({ ...chunkOf({}), choices: [], usage: { prompt_tokens: 3, completion_tokens: 9, total_tokens: 12 } });
const DONE = 'data: [DONE]\n\n';

interface Run {
  text: string;
  events: { name: string; data: unknown }[];
  forwarded: number;
  forwardedText: string;
  spliced: number;
}

/** Runs upstream reads through a source and the encoder, as the proxy does. */
function run(reads: Uint8Array[], spliced: boolean): Run {
  const encoder = new CountingEncoder(shell(), 'req1', () => undefined);
  const source: Source = spliced ? splicedSource(NOTHING, encoder) : transformSource(NOTHING, [], encoder);
  const parts: Uint8Array[] = [utf8.encode(encoder.start())];
  const sink = { write: (b: Uint8Array) => void parts.push(b) };
  let failure: string | null = null;
  try {
    for (const value of reads) if (!source.take({ done: false, value }, sink)) break;
    source.take({ done: true }, sink);
  } catch (error) {
    failure = (error as Error).message;
  }
  const outcome = source.outcome();
  const last = outcome.usageChunk ? { ...outcome.usageChunk, usage: outcome.usage!, cost: { total_usd: '0.000001' } } : null;
  parts.push(utf8.encode(failure ? encoder.error(failure) : encoder.end(last)));
  const text = Buffer.concat(parts).toString('utf8');
  const events = text
    .split('\n\n')
    .filter(Boolean)
    .map((e) => {
      const [name, data] = e.split('\n');
      return { name: name!.slice('event: '.length), data: JSON.parse(data!.slice('data: '.length)) as unknown };
    });
  return { text, events, forwarded: outcome.forwarded, forwardedText: outcome.forwardedText().text, spliced: encoder.spliced };
}

/** The byte path's run against the decoded path's: the same events (by meaning), the same count and billing text. */
function expectSameAsDecoded(stream: string | Uint8Array, reads?: Uint8Array[]): Run {
  const bytes = typeof stream === 'string' ? utf8.encode(stream) : stream;
  const decoded = run([bytes], false);
  const spliced = run(reads ?? [bytes], true);
  expect(spliced.events).toEqual(decoded.events);
  expect(spliced.forwarded).toBe(decoded.forwarded);
  expect(spliced.forwardedText).toBe(decoded.forwardedText);
  return spliced;
}

const TRICKY = [
  '"Hello"',
  '" wor\\"ld\\\\ \\/ \\b\\f\\n\\r\\t"',
  '"caf\u00e9 \u65e5\u672c \ud83d\ude00"',
  '"\\u00e9\\u65E5 \\ud83d\\ude00 \\ud800 lone"',
  '"nul \\u0000 and \\u001f"',
  '"a < b"',
  '"after"',
  '"\\u003cthink\\u003e escaped tag"',
];

describe('the /responses byte path for text deltas', () => {
  test('escapes, unicode, \\u escapes and tags: the same events as the decoded path, most deltas spliced', () => {
    const stream =
      event(chunkOf({ role: 'assistant', content: '' })) + TRICKY.map(textEvent).join('') + event(chunkOf({}, 'stop')) + USAGE + DONE;
    const r = expectSameAsDecoded(stream);
    // The first delta opens the message (decoded); the two that hold `<`, written or escaped, are decoded too.
    expect(r.spliced).toBe(TRICKY.length - 3);
    const completed = r.events.at(-1)!.data as { response: { output: { content: { text: string }[] }[] } };
    // The escaped `<think>` opened a reasoning block: the message holds the text before it.
    expect(completed.response.output[0]!.content[0]!.text).toBe(
      TRICKY.slice(0, -1)
        .map((t) => JSON.parse(t) as string)
        .join(''),
    );
  });

  test('a stream cut at every byte into two reads, and into one read per byte, gives the same events', () => {
    const stream = utf8.encode(event(chunkOf({ content: 'Hi' })) + TRICKY.slice(0, 5).map(textEvent).join('') + USAGE + DONE);
    for (let cut = 1; cut < stream.length; cut++) expectSameAsDecoded(stream, [stream.slice(0, cut), stream.slice(cut)]);
    const r = expectSameAsDecoded(
      stream,
      Array.from(stream, (b) => Uint8Array.of(b)),
    );
    expect(r.spliced).toBe(5);
  });

  test('inline <think> blocks: the thought inside is spliced into the reasoning item, the tags and their edges are decoded', () => {
    const stream =
      event(chunkOf({ role: 'assistant', content: '<think>' })) +
      ['"let me"', '" think \\n"', '" \u00e9 more"', '" done"'].map(textEvent).join('') +
      textEvent('" a </thi"') +
      textEvent('"nk>\\n\\nThe"') +
      ['"answer"', '" is 42"'].map(textEvent).join('') +
      event(chunkOf({}, 'stop')) +
      USAGE +
      DONE;
    const r = expectSameAsDecoded(stream);
    // The first thought opens the item; the tag's pieces and the first answer text (the space after the block) are decoded.
    expect(r.spliced).toBe(3 + 2);
    const completed = r.events.at(-1)!.data as { response: { output: { type: string; summary?: { text: string }[] }[] } };
    expect(completed.response.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expect(completed.response.output[0]!.summary![0]!.text).toBe('let me think \n \u00e9 more done a ');
  });

  test('reasoning_content deltas (content null beside them) are spliced into the reasoning item, then content into the message', () => {
    const reasoning = (json: string) => `data: ${HEAD.replace('"content":', '"content":null,"reasoning_content":')}${json}${TAIL}\n\n`;
    const stream =
      event(chunkOf({ role: 'assistant', content: null, reasoning_content: 'First' })) +
      ['" I"', '" weigh \\"it\\""', '" \\u00e9"'].map(reasoning).join('') +
      event(chunkOf({ content: 'So' })) +
      ['" yes"', '" \\u003c no"', '" indeed"'].map(textEvent).join('') +
      reasoning('" late thought"') +
      event(chunkOf({}, 'stop')) +
      USAGE +
      DONE;
    const r = expectSameAsDecoded(stream);
    // Decoded: the first of each (opening; the role makes the first reasoning chunk's shape its own, so the second
    // one is learnt from), the escaped `<`, the late thought (it opens a new item).
    expect(r.spliced).toBe(2 + 2);
    const completed = r.events.at(-1)!.data as { response: { output: { type: string; summary?: { text: string }[] }[] } };
    expect(completed.response.output.map((item) => item.type)).toEqual(['reasoning', 'message', 'reasoning']);
    expect(completed.response.output[0]!.summary![0]!.text).toBe('First I weigh "it" \u00e9');
  });

  test('a chunk with text and tool calls, reasoning, a finish or usage riding along is decoded', () => {
    const withCall = chunkOf({ content: 'x', tool_calls: [{ index: 0, id: 'c1', function: { name: 'f', arguments: '{}' } }] });
    const stream =
      event(chunkOf({ content: 'Hi' })) +
      textEvent('" there"') +
      event(withCall) +
      event(chunkOf({ content: 'y', reasoning_content: 'r' })) +
      event({ ...chunkOf({ content: 'z' }), usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }) +
      event(chunkOf({ content: 'w' }, 'length')) +
      USAGE +
      DONE;
    const r = expectSameAsDecoded(stream);
    expect(r.spliced).toBe(1);
    expect(r.events.map((e) => e.name)).toContain('response.function_call_arguments.done');
  });

  test('a string field that swallows the rest of the tail, and a delta ending in a backslash, are decoded', () => {
    // The bytes after the content match the learned tail, but what lies between is not one JSON string.
    const sneaky = `data: ${HEAD}"a","tool_calls":"b${TAIL}\n\n`;
    const stream = event(chunkOf({ content: 'Hi' })) + textEvent('"ok"') + sneaky + USAGE + DONE;
    const r = expectSameAsDecoded(stream);
    expect(r.spliced).toBe(1);
    const lone = event(chunkOf({ content: 'Hi' })) + textEvent('"ok"') + textEvent('"x\\\\"') + textEvent('"x\\"') + USAGE + DONE;
    expect(expectSameAsDecoded(lone).events.at(-1)!.name).toBe('response.failed');
  });

  test('invalid UTF-8 in a delta is decoded (replaced) as the decoded path does', () => {
    const bytes = Buffer.concat([
      utf8.encode(event(chunkOf({ content: 'Hi' })) + textEvent('"ok"')),
      utf8.encode(`data: ${HEAD}"bad `),
      Uint8Array.of(0xc3, 0x28, 0xed, 0xa0, 0x80),
      utf8.encode(`"${TAIL}\n\n${USAGE}${DONE}`),
    ]);
    const r = expectSameAsDecoded(bytes);
    expect(r.spliced).toBe(1);
    expect(r.text).toContain('\ufffd');
  });

  test('no usage from the upstream: the same forwarded count and text for the fallback bill', () => {
    const stream = event(chunkOf({ content: 'Hi' })) + TRICKY.slice(0, 5).map(textEvent).join('') + event(chunkOf({}, 'stop')) + DONE;
    const r = expectSameAsDecoded(stream);
    expect(r.spliced).toBe(5);
    expect(r.forwarded).toBe(6);
  });

  test('an upstream whose lines end in CRLF is decoded whole', () => {
    const stream = (event(chunkOf({ content: 'Hi' })) + textEvent('" there"') + textEvent('" again"') + USAGE + DONE).replaceAll(
      '\n',
      '\r\n',
    );
    const r = expectSameAsDecoded(stream);
    expect(r.spliced).toBe(0);
  });

  test('an in-band error mid-stream ends the same way, and nothing after [DONE] is written', () => {
    const broken =
      event(chunkOf({ content: 'Hi' })) + textEvent('" there"') + event({ error: { message: 'boom' } }) + textEvent('" never"');
    expectSameAsDecoded(broken);
    const after = event(chunkOf({ content: 'Hi' })) + textEvent('" there"') + USAGE + DONE + textEvent('" late"');
    const r = expectSameAsDecoded(after);
    expect(r.text).not.toContain('late');
  });

  test('an upstream whose chunks differ outside the content (a nonce per chunk) is decoded, with the same events', () => {
    const stream =
      Array.from({ length: 20 }, (_, i) => event({ ...chunkOf({ content: `w${i} ` }), obfuscation: 'x'.repeat(i) })).join('') +
      USAGE +
      DONE;
    const r = expectSameAsDecoded(stream);
    expect(r.spliced).toBe(0);
  });
});
