import { expect, test } from 'bun:test';
import { classifyEvent } from '../../src/stream/chunks';
import { SseDecoder } from '../../src/stream/events';
import { chunkText } from '../../src/stream/forwarded-text';
import { scanForwardedText } from '../../src/stream/forwarded-scan';

// The count of a stream whose upstream reports no usage reads the forwarded bytes in place;
// it must find exactly the text that decoding each event and collecting chunkText finds.
const bytes = (s: string) => new TextEncoder().encode(s);
const frame = (obj: unknown, sep = ':', eol = '\n') => `data${sep}${JSON.stringify(obj)}${eol}${eol}`;
const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id: 'c',
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta, finish_reason: null, ...extra }],
});

function decoded(regions: Uint8Array[]): string {
  const decoder = new SseDecoder();
  let text = '';
  for (const r of regions)
    for (const event of decoder.push(r)) {
      const e = classifyEvent(event);
      if (e?.kind === 'chunk') text += chunkText(e.chunk);
    }
  return text;
}

const scan = (regions: Uint8Array[]) =>
  scanForwardedText(
    regions,
    regions.reduce((n, r) => n + r.length, 0),
  );

test('content, reasoning and tool calls, escapes, non-ASCII text and keys inside values read as decoding reads them', () => {
  const regions = [
    bytes(frame(chunk({ role: 'assistant', content: '' })) + frame(chunk({ reasoning_content: 'think "content": no' }))),
    bytes(frame(chunk({ content: 'Hé\n\t"quoted" \\ back\u2028 ✓ 😀' })) + ': ping\n\n'),
    bytes(
      frame(
        chunk({ tool_calls: [{ index: 0, id: 't', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] }),
      ),
    ),
    bytes(frame(chunk({ content: null, role: 'content' }, { logprobs: { content: [{ token: 'x', logprob: 0 }] } }))),
    bytes(frame(chunk({ content: 'spaced' }), ': ', '\r\n')),
    bytes(frame(chunk({}, { finish_reason: 'stop' }))),
  ];
  const expected = decoded(regions);
  expect(expected).toContain('get_weather{"city":"Paris"}');
  expect(scan(regions)).toBe(expected);
});

test('events over several regions, one written with spaces around its colons', () => {
  const spaced = 'data: {"choices": [{"delta": {"content" : "a b"}}]}\n\n';
  const regions = [bytes(frame(chunk({ content: 'one ' }))), bytes(spaced), bytes(frame(chunk({ content: 'two' })))];
  expect(scan(regions)).toBe(decoded(regions));
  expect(scan(regions)).toBe('one a btwo');
});

test('events the scan does not read in place (multi-line data, event fields, a number where text was expected) are left to the decoder', () => {
  expect(scan([bytes('data: {"choices":\ndata: [{"delta":{"content":"x"}}]}\n\n')])).toBeNull();
  expect(scan([bytes(`event: message\n${frame(chunk({ content: 'x' }))}`)])).toBeNull();
  expect(scan([bytes(frame(chunk({ content: 5 })))])).toBeNull();
});
