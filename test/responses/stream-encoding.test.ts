import { describe, expect, test } from 'bun:test';
import { DELTA_TYPES, deltaPayload, typedEventText, type DeltaKind } from '../../src/responses/event-templates';
import type { ChatDelta } from '../../src/responses/output';
import { responseShell } from '../../src/responses/response';
import type { ResponsesRequest } from '../../src/responses/schema';
import { ResponsesStreamEncoder } from '../../src/responses/stream-encoder';
import { ThinkSplitter } from '../../src/responses/think-split';
import { namedEventText } from '../../src/stream/encoder';
import type { ChatChunk } from '../../src/stream/wire';

/** The straightforward encoder: every event an object with its type and sequence number, written by namedEventText. */
class PlainEncoder extends ResponsesStreamEncoder {
  override event(type: string, payload: Record<string, unknown>): void {
    this.pending += namedEventText(type, { type, sequence_number: this.sequence++, ...payload });
  }
  override delta(kind: DeltaKind, itemId: string, outputIndex: number, delta: string): void {
    this.event(DELTA_TYPES[kind], deltaPayload(kind, itemId, outputIndex, delta));
  }
}

const shell = () => responseShell({ model: 'm', input: 'Hi', stream: true } as ResponsesRequest, 'resp_x', 'm', 1);
const chunk = (delta: ChatDelta, finish: string | null = null): ChatChunk => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta: delta as ChatChunk['choices'][number]['delta'], finish_reason: finish }],
});

/** The whole stream's text from one encoder class. */
function encode(Encoder: typeof ResponsesStreamEncoder, idBase: string, deltas: ChatDelta[], fail = false): string {
  const enc = new Encoder(shell(), idBase, () => undefined);
  let out = enc.start();
  for (const d of deltas) out += enc.chunk(chunk(d));
  const last = { ...chunk({}), choices: [], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } };
  return out + (fail ? enc.error('broke "here"\n') : enc.end(last));
}

const TRICKY = [
  'plain',
  'quotes " and \\" and \\\\',
  'control \u0000\u0001\b\f\n\r\t\u001f\u007f',
  'line separators \u2028\u2029',
  'unicode é ß 中文 😀',
  // A surrogate pair split across chunks: each half alone is escaped as \udXXX.
  '\ud83d',
  '\ude00 after',
  '"delta":"" and "sequence_number":0',
  '</scr' + 'ipt> & <b>',
  '',
];

describe('Responses delta events from templates', () => {
  const cases: [string, ChatDelta[]][] = [
    ['text', TRICKY.map((content) => ({ content }))],
    [
      'reasoning_content then text',
      [...TRICKY.map((reasoning_content) => ({ reasoning_content })), ...TRICKY.map((content) => ({ content }))],
    ],
    [
      '<think> blocks split across chunks',
      [{ content: '<thi' }, { content: 'nk>"\\\ud83d' }, { content: '\ude00</th' }, { content: 'ink>\n ok "x"' }],
    ],
    [
      'interleaved tool calls',
      [
        { tool_calls: [{ index: 0, id: 'a"1', function: { name: 'f', arguments: '{"q":' } }] },
        { tool_calls: [{ index: 1, id: 'b', function: { name: 'g', arguments: '{"s":"\\u00e9' } }] },
        { tool_calls: [{ index: 0, function: { arguments: '"\u0000\n"}' } }] },
        { tool_calls: [{ index: 1, function: { arguments: '😀"}' } }] },
      ],
    ],
    [
      'many items (two-digit output indices)',
      Array.from({ length: 24 }, (_, i) => (i % 2 ? { content: `t${i}"` } : { reasoning_content: `r${i}\\` })),
    ],
  ];
  for (const [name, deltas] of cases)
    test(`${name}: byte-identical to the plain encoder, completed and failed`, () => {
      for (const idBase of ['req1', 'a"b\\c "delta":""']) {
        expect(encode(ResponsesStreamEncoder, idBase, deltas)).toBe(encode(PlainEncoder, idBase, deltas));
        expect(encode(ResponsesStreamEncoder, idBase, deltas, true)).toBe(encode(PlainEncoder, idBase, deltas, true));
      }
    });
});

describe('ThinkSplitter.plain', () => {
  test('a piece it calls plain is what push returns as the answer, at every split', () => {
    const texts = ['a <think>x</think>\n b < c', '<think>\n</think>  word', 'x</think>y <thin', 'no tags at all', '<<think>></think>>'];
    let plainSeen = 0;
    for (const text of texts)
      for (let i = 0; i <= text.length; i++)
        for (let j = i; j <= text.length; j++) {
          const s = new ThinkSplitter();
          for (const piece of [text.slice(0, i), text.slice(i, j), text.slice(j)]) {
            const plain = s.plain(piece);
            const out = s.push(piece);
            if (plain) {
              plainSeen++;
              expect(out).toEqual({ thought: '', answer: piece });
            }
          }
        }
    expect(plainSeen).toBeGreaterThan(100);
  });
});

test('typedEventText writes what namedEventText writes for the spread object, an empty payload too', () => {
  for (const payload of [{}, { a: 1 }, { s: 'q"\\', n: null, o: { x: [1] }, u: undefined }])
    expect(typedEventText('response.test', 12, payload)).toBe(
      namedEventText('response.test', { type: 'response.test', sequence_number: 12, ...payload }),
    );
});
