import { expect, test } from 'bun:test';
import { ForwardedText } from '../../src/stream/forwarded-text';
import { UsageTap } from '../../src/stream/usage-tap';

// A slow upstream sends one small region per event, each its own buffer. A stream held open must
// not keep a reference to every one (a long-held stream kept up to 64 KB of them, ~350 regions):
// past the first 64 (a short stream is never scanned), the kept text is folded and the tap's
// count taken every 16 regions; what the count and the fallback text read must not change.
const bytes = (s: string) => new TextEncoder().encode(s);
const event = (content: string) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

test('a stream of 300 one-event regions holds a bounded number of them, and its text and count are unchanged', () => {
  const tap = new UsageTap();
  const kept = new ForwardedText();
  const out: Uint8Array[] = [];
  let expected = '';
  for (let i = 0; i < 300; i++) {
    const content = i === 150 ? 'Hé ✓ 😀 "q" ' : `w${i} `;
    expected += content;
    // Regions the in-place scan leaves to the decoder (a multi-line data field), among the others.
    const text =
      i === 30 || i === 200 ? `data: {"choices":\ndata: [{"delta":{"content":${JSON.stringify(content)}}}]}\n\n` : event(content);
    tap.push(bytes(text), (region) => {
      kept.keepBytes(region, tap);
      out.push(region);
    });
    const bound = i < 64 ? 64 : 16;
    expect(tap.heldRegions).toBeLessThanOrEqual(bound);
    expect(kept.heldRegions).toBeLessThanOrEqual(bound);
  }
  expect(out.length).toBe(300);
  expect(tap.events).toBe(300);
  expect(kept.content(tap.events)).toEqual({ text: expected, chunksPastCap: 0 });
});

test('past the cap, content chunks are counted instead of kept, as before the fold', () => {
  const tap = new UsageTap();
  const kept = new ForwardedText();
  const word = 'x'.repeat(200);
  // ~290 bytes an event: the 64 KB cap is reached within 240 events.
  for (let i = 0; i < 400; i++) tap.push(bytes(event(word)), (region) => kept.keepBytes(region, tap));
  const { text, chunksPastCap } = kept.content(tap.events);
  expect(text.length / word.length + chunksPastCap).toBe(400);
  expect(chunksPastCap).toBeGreaterThan(0);
  expect(kept.heldRegions).toBeLessThanOrEqual(16);
});

test('a short stream (under 64 reads) is held whole, as before: nothing is folded or counted until asked', () => {
  const tap = new UsageTap();
  const kept = new ForwardedText();
  for (let i = 0; i < 50; i++) tap.push(bytes(event(`w${i} `)), (region) => kept.keepBytes(region, tap));
  expect(tap.heldRegions).toBe(50);
  expect(kept.heldRegions).toBe(50);
  expect(kept.content(tap.events).text).toBe(Array.from({ length: 50 }, (_, i) => `w${i} `).join(''));
});
