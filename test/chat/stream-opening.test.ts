import { describe, expect, test } from 'bun:test';
import { upstreamErrorStatus } from '../../src/stream/chunks';
import { InBandOpeningError, readOpening } from '../../src/stream/opening';
import type { ByteReader } from '../../src/stream/prefetched';

const enc = new TextEncoder();
const dec = new TextDecoder();
const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const ROLE = chunk({ role: 'assistant', content: '' });
const HELLO = chunk({ content: 'Hello' });
const ERROR = `data: ${JSON.stringify({ error: { message: 'bad things', code: 400 } })}\n\n`;

/** A reader over `pieces`, counting the reads made. */
function reader(pieces: Uint8Array[]): ByteReader & { reads: number } {
  const r = {
    reads: 0,
    async read() {
      r.reads++;
      const value = pieces.shift();
      return value ? { done: false as const, value } : { done: true as const };
    },
    async cancel() {},
  };
  return r;
}

/** Every two-way split of `text`: the first piece, and a reader over the rest. */
function* splits(text: string): Generator<[Uint8Array, ReturnType<typeof reader>]> {
  const bytes = enc.encode(text);
  for (let i = 1; i < bytes.length; i++) yield [bytes.slice(0, i), reader([bytes.slice(i)])];
}

describe('readOpening', () => {
  test('an error event before content throws with its status, wherever the bytes are cut', async () => {
    for (const text of [ERROR, ROLE + ': keep-alive\n\n' + ERROR + HELLO])
      for (const [first, rest] of splits(text)) {
        const error = await readOpening(first, rest).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InBandOpeningError);
        expect(error).toMatchObject({ message: 'bad things', status: 400 });
      }
  });

  test('content before the error: the held bytes come back whole and nothing past the first content is read', async () => {
    const text = ROLE + HELLO;
    const bytes = enc.encode(text);
    for (let i = 1; i < bytes.length; i++) {
      const rest = reader([bytes.slice(i), enc.encode(ERROR)]);
      expect(dec.decode(await readOpening(bytes.slice(0, i), rest))).toBe(text);
      expect(rest.reads).toBe(1);
    }
  });

  test('a finish, [DONE] or the end of the stream stop the hold; the byte cap too', async () => {
    expect(dec.decode(await readOpening(enc.encode(ROLE + chunk({}, 'stop')), reader([])))).toBe(ROLE + chunk({}, 'stop'));
    expect(dec.decode(await readOpening(enc.encode(ROLE + 'data: [DONE]\n\n'), reader([enc.encode(ERROR)])))).toBe(
      ROLE + 'data: [DONE]\n\n',
    );
    expect(dec.decode(await readOpening(enc.encode(ROLE), reader([])))).toBe(ROLE);
    const endless = reader(Array.from({ length: 100 }, () => enc.encode(ROLE)));
    await readOpening(enc.encode(ROLE), endless, 4 * ROLE.length);
    expect(endless.reads).toBe(3);
  });

  test('a malformed event is left to the proxy, as before', async () => {
    expect(dec.decode(await readOpening(enc.encode('data: {nope\n\n'), reader([enc.encode(ERROR)])))).toBe('data: {nope\n\n');
  });

  test('the status of an in-band error: a numeric code or status, else its type or code name, else 500', () => {
    expect(upstreamErrorStatus({ code: 429 })).toBe(429);
    expect(upstreamErrorStatus({ code: '503' })).toBe(503);
    expect(upstreamErrorStatus({ status: 400, code: 'x' })).toBe(400);
    expect(upstreamErrorStatus({ type: 'rate_limit_error' })).toBe(429);
    expect(upstreamErrorStatus({ type: 'invalid_request_error', code: null })).toBe(400);
    expect(upstreamErrorStatus({ code: 'context_length_exceeded' })).toBe(400);
    expect(upstreamErrorStatus({ code: 200 })).toBe(500);
    expect(upstreamErrorStatus('plain text')).toBe(500);
  });
});
