import { t } from 'elysia';
import { freeMeter, type MeteredUsage, type MeterOpenInput, type UsageMeter } from '../../src/billing/meter';
import type { ChatChunk } from '../../src/stream/wire';
import type { RequestPlugin } from '../../src/pipeline/plugin';
import { readSseEvents } from '../../src/stream/events';

/** A meter that records every open/settle/release, charging 1234 micro-USD per settle. */
export function recordingMeter() {
  const calls = { opened: [] as MeterOpenInput[], settled: [] as MeteredUsage[], released: 0 };
  const meter: UsageMeter = {
    ...freeMeter,
    async open(input) {
      calls.opened.push(input);
      return {
        headers: { 'x-ratelimit-remaining-requests': '99' },
        balances: { usd: 0, diem: 0 },
        async settle(usage) {
          calls.settled.push(usage);
          return { usdMicros: 1234, diemMicros: 0 };
        },
        async release() {
          calls.released++;
        },
      };
    },
  };
  return { meter, calls };
}

/** A model entry for config, routed to the given provider ids. */
export function fixtureModel(id: string, providers: string[], extra: Record<string, unknown> = {}) {
  return {
    id,
    type: 'text',
    routes: providers.map((p) => ({ provider: p, model: `${p}-model` })),
    pricing: { input: '1', output: '2' },
    ...extra,
  };
}

/** An openai-compatible provider entry for config. */
export const fixtureProvider = (id: string, url: string, timeoutMs = 2000) => ({ id, kind: 'openai-compatible', baseURL: url, timeoutMs });

/** A test plugin: two suffix-able parameters it copies into the upstream request. */
export const echoPlugin: RequestPlugin = {
  name: 'test_flag',
  parameters: {
    test_flag: t.Optional(t.Boolean({ default: false })),
    test_mode: t.Optional(t.Union([t.Literal('a'), t.Literal('b')])),
  },
  suffixKeys: ['test_flag', 'test_mode'],
  isActive: (ctx) => ctx.params.test_flag === true || ctx.params.test_mode !== undefined,
  transformRequest(req, ctx) {
    req.test_seen = { flag: ctx.params.test_flag, mode: ctx.params.test_mode };
  },
};

/** A test plugin with a stream transform (upper-cases content), a leading chunk and an extra charge. */
export const upperPlugin: RequestPlugin = {
  name: 'test_upper',
  parameters: { test_upper: t.Optional(t.Boolean({ default: false })) },
  suffixKeys: ['test_upper'],
  isActive: (ctx) => ctx.params.test_upper === true,
  transformRequest(_req, ctx) {
    ctx.extraCharges.push({ sku: 'test', units: 1, unitPriceMicros: 5 });
    ctx.echo.test_note = 'upper';
    ctx.leadingChunks.push({
      id: 'lead',
      object: 'chat.completion.chunk',
      created: 1,
      model: ctx.model.id,
      choices: [{ index: 0, delta: { content: 'LEAD ' }, finish_reason: null }],
    });
  },
  transformStream: () => ({
    transform(c, emit) {
      const d = c.choices[0]?.delta;
      if (typeof d?.content === 'string') d.content = d.content.toUpperCase();
      emit(c);
    },
  }),
  transformResponse(body) {
    const m = body.choices[0]?.message;
    if (m && typeof m.content === 'string') m.content = m.content.toUpperCase();
    return body;
  },
};

/** Reads an SSE response into its data payloads (JSON-parsed, `[DONE]` kept as a string). */
export async function sseData(res: Response): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const e of readSseEvents(res.body as ReadableStream<Uint8Array>))
    out.push(e.data === '[DONE]' ? '[DONE]' : JSON.parse(e.data));
  return out;
}

/** The concatenated delta content of SSE payloads. */
export function contentOf(events: unknown[]): string {
  let s = '';
  for (const e of events) {
    const c = (e as ChatChunk).choices?.[0]?.delta?.content;
    if (typeof c === 'string') s += c;
  }
  return s;
}
