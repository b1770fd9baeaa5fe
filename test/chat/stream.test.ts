import { describe, expect, test } from 'bun:test';
import type { ChatChunk, ChunkTransformer } from '../../src/stream/wire';
import { SseDecoder } from '../../src/stream/events';
import { LineDecoder } from '../../src/stream/lines';
import { proxyStream, type StreamOutcome } from '../../src/stream/proxy';
import { UsageTap } from '../../src/stream/usage-tap';

const enc = new TextEncoder();
const dec = new TextDecoder();
const bytes = (s: string) => enc.encode(s);

/** Splits `data` at every given byte offset. */
function splitAt(data: Uint8Array, cuts: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const c of [...cuts, data.length]) {
    out.push(data.slice(prev, c));
    prev = c;
  }
  return out;
}

function streamOf(parts: Uint8Array[], opts: { failAfter?: boolean } = {}): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(c) {
      if (i < parts.length) c.enqueue(parts[i++] as Uint8Array);
      else if (opts.failAfter) c.error(new Error('socket closed'));
      else c.close();
    },
  });
}

const chunk = (content: string, extra: Partial<ChatChunk> = {}): ChatChunk => ({
  id: 'c1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta: { content }, finish_reason: null }],
  ...extra,
});
const sse = (o: unknown) => `data: ${JSON.stringify(o)}\n\n`;
const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };
const usageChunk = { ...chunk(''), choices: [], usage };

describe('LineDecoder', () => {
  test('multi-byte characters split at every byte keep their bytes', () => {
    const text = 'héllo 世界 🎉\nnext\n';
    const data = bytes(text);
    for (let cut = 1; cut < data.length; cut++) {
      const d = new LineDecoder();
      const lines = [...splitAt(data, [cut]).flatMap((p) => d.decode(p)), ...d.flush()];
      expect(lines).toEqual(['héllo 世界 🎉', 'next']);
    }
  });

  test('\\r\\n split across chunks is one break; bare \\r and \\n also end lines', () => {
    const d = new LineDecoder();
    const lines = [...d.decode(bytes('a\r')), ...d.decode(bytes('\nb\rc\n')), ...d.decode(bytes('\r\n')), ...d.flush()];
    expect(lines).toEqual(['a', 'b', 'c', '']);
  });
});

describe('SseDecoder', () => {
  test('joins data lines, skips comments, strips one space, handles CRLF framing', () => {
    const d = new SseDecoder();
    const events = [...d.push(bytes(': ping\r\n\r\nevent: x\r\ndata:  a\r\ndata:b\r\n\r\ndata: [DONE]')), ...d.end()];
    expect(events).toEqual([
      { event: 'x', data: ' a\nb' },
      { event: null, data: '[DONE]' },
    ]);
  });
});

describe('UsageTap', () => {
  const body = sse(chunk('Hi ')) + sse(chunk('wörld')) + sse(usageChunk) + 'data: [DONE]\n\n';

  test('forwards content bytes unchanged, withholds usage and [DONE], at any split point', () => {
    const data = bytes(body);
    const expected = sse(chunk('Hi ')) + sse(chunk('wörld'));
    for (let cut = 1; cut < data.length; cut += 7) {
      const tap = new UsageTap();
      const out: Uint8Array[] = [];
      for (const p of splitAt(data, [cut])) tap.push(p, (b) => out.push(b));
      tap.finish((b) => out.push(b));
      expect(dec.decode(Buffer.concat(out))).toBe(expected);
      expect(tap.usage).toEqual(usage);
      expect(tap.sawDone).toBe(true);
      expect(tap.events).toBe(2);
    }
  });

  test('an unchanged chunk is forwarded as the same object (zero-copy)', () => {
    const tap = new UsageTap();
    const part = bytes(sse(chunk('a')) + sse({ ...chunk('b'), usage: null }));
    const out: Uint8Array[] = [];
    tap.push(part, (b) => out.push(b));
    expect(out).toHaveLength(1);
    expect(out[0]).toBe(part);
    expect(tap.usage).toBeNull();
  });

  test('content sharing a network chunk with the usage report still goes out as its original bytes', () => {
    const tap = new UsageTap();
    const part = bytes(body);
    const out: Uint8Array[] = [];
    tap.push(part, (b) => out.push(b));
    expect(out).toHaveLength(1);
    expect(out[0]?.buffer).toBe(part.buffer);
    expect(dec.decode(out[0])).toBe(sse(chunk('Hi ')) + sse(chunk('wörld')));
  });

  test('an in-band upstream error is captured, not forwarded', () => {
    const tap = new UsageTap();
    const out: Uint8Array[] = [];
    tap.push(bytes(sse(chunk('a')) + sse({ error: { message: 'boom' } })), (b) => out.push(b));
    expect(tap.upstreamError).toBe('boom');
    expect(dec.decode(Buffer.concat(out))).toBe(sse(chunk('a')));
  });
});

async function drain(stream: ReadableStream<Uint8Array>): Promise<string> {
  return dec.decode(Buffer.concat(await Array.fromAsync(stream)));
}

function proxyOf(upstream: ReadableStream<Uint8Array>, extra: Partial<Parameters<typeof proxyStream>[0]> = {}) {
  const outcomes: StreamOutcome[] = [];
  let aborted = 0;
  const stream = proxyStream({
    upstream,
    transforms: [],
    leading: [],
    pingIntervalMs: 60_000,
    abortUpstream: () => void aborted++,
    finish: async (o) => {
      outcomes.push(o);
      return o.usage ? { ...(o.usageChunk as ChatChunk), usage: o.usage, cost: { usd: 0, diem: 0 } } : null;
    },
    ...extra,
  });
  return { stream, outcomes, aborted: () => aborted };
}

describe('proxyStream', () => {
  test('zero-copy: content, then the usage chunk with cost, then [DONE]; finish once', async () => {
    const p = proxyOf(streamOf([bytes(sse(chunk('Hi'))), bytes(sse(usageChunk) + 'data: [DONE]\n\n')]));
    const text = await drain(p.stream);
    expect(text).toBe(sse(chunk('Hi')) + sse({ ...usageChunk, cost: { usd: 0, diem: 0 } }) + 'data: [DONE]\n\n');
    expect(p.outcomes).toHaveLength(1);
    expect(p.outcomes[0]).toMatchObject({ usage, error: null, aborted: false });
  });

  test('a transform decodes once and encodes once', async () => {
    const upper: ChunkTransformer = {
      transform(c, emit) {
        const d = c.choices[0]?.delta;
        if (d?.content) d.content = d.content.toUpperCase();
        emit(c);
      },
    };
    const p = proxyOf(streamOf([bytes(sse(chunk('hi')) + sse(usageChunk)), bytes('data: [DONE]\n\n')]), { transforms: [upper] });
    const text = await drain(p.stream);
    expect(text).toContain('"content":"HI"');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(p.outcomes[0]?.usage).toEqual(usage);
  });

  test('mid-stream failure: in-band error event then [DONE], outcome counts what was forwarded', async () => {
    const identity: ChunkTransformer = { transform: (c, emit) => emit(c) };
    for (const transforms of [[], [identity]]) {
      const p = proxyOf(streamOf([bytes(sse(chunk('a')) + sse(chunk('b')) + sse(chunk('c')))], { failAfter: true }), { transforms });
      const text = await drain(p.stream);
      expect(text).toContain('"code":"upstream_error"');
      expect(text).toContain('"type":"server_error"');
      expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
      expect(p.outcomes).toHaveLength(1);
      expect(p.outcomes[0]?.error).toBeTruthy();
      expect(p.outcomes[0]?.forwarded).toBeGreaterThanOrEqual(2);
    }
  });

  test('an upstream that closes without [DONE] or usage is reported as broken', async () => {
    const p = proxyOf(streamOf([bytes(sse(chunk('a')))]));
    const text = await drain(p.stream);
    expect(text).toContain('upstream_error');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  test('keep-alive pings while the upstream is silent', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const upstream = new ReadableStream<Uint8Array>({
      async pull(c) {
        await gate;
        c.enqueue(bytes(sse(usageChunk) + 'data: [DONE]\n\n'));
        c.close();
      },
    });
    const p = proxyOf(upstream, { pingIntervalMs: 20 });
    const reader = p.stream.getReader();
    const first = dec.decode((await reader.read()).value);
    expect(first).toBe(': ping\n\n');
    release();
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += dec.decode(r.value);
    expect(rest.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  test('cancel aborts the upstream and finishes once as aborted', async () => {
    const upstream = new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) });
    const p = proxyOf(upstream, { leading: [chunk('lead')] });
    const reader = p.stream.getReader();
    expect(dec.decode((await reader.read()).value)).toContain('lead');
    await reader.cancel();
    expect(p.aborted()).toBe(1);
    expect(p.outcomes).toHaveLength(1);
    expect(p.outcomes[0]?.aborted).toBe(true);
  });
});
