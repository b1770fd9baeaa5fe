import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { fixtureModel, fixtureProvider } from '../chat/helpers';
import { startUpstream, type FixtureUpstream } from '../fixtures/openai-upstream';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import type { Logger } from '../../src/log';
import { startCollector, type CollectedSpan } from './otlp-collector';
import { startRpcNode, type RpcNodeFixture } from '../fixtures/rpc-node';
import { call as rpcCall, rpc } from '../rpc/helpers';

const SERVER = 2;
const CLIENT = 3;
const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';

/** A logger that keeps its lines. */
function keptLog(): Logger & { lines: { msg: string; fields?: Record<string, unknown> }[] } {
  const lines: { msg: string; fields?: Record<string, unknown> }[] = [];
  const keep = (msg: string, fields?: Record<string, unknown>) => void lines.push({ msg, fields });
  return { lines, debug: keep, info: keep, warn: keep, error: keep, enabled: () => true };
}

for (const backend of BACKENDS) {
  describe(`OpenTelemetry traces (${backend.name})`, () => {
    let upstream: FixtureUpstream;
    let node: RpcNodeFixture;
    let collector: ReturnType<typeof startCollector>;
    const apps: TestApp[] = [];
    const body = { model: 'tr-model', messages: [{ role: 'user', content: 'trace me' }] };

    const start = async (tracing: Record<string, unknown> | null, log?: Logger) => {
      const t = await startTestApp({
        backend,
        config: {
          providers: [fixtureProvider('tr-up', upstream.url), fixtureProvider('tr-dead', 'http://127.0.0.1:1')],
          models: [
            fixtureModel('tr-model', ['tr-up']),
            fixtureModel('tr-down', ['tr-dead']),
            fixtureModel('tr-emb', ['tr-up'], { type: 'embedding', pricing: { input: '1' }, dimensions: 8 }),
          ],
          rpc: { networks: [{ id: 'ethereum-mainnet', family: 'evm', urls: [node.url] }] },
          ...(tracing && { observability: { tracing: { endpoint: collector.url, exportIntervalMs: 60_000, ...tracing } } }),
        },
        fetch,
        log,
      });
      apps.push(t);
      return t;
    };
    // After-response hooks run a macrotask after the answer; then the spans are built and exported.
    const exported = async (t: TestApp) => {
      await new Promise((resolve) => setImmediate(resolve));
      await t.deps.meter.flush();
      await t.deps.observability!.tracing?.flush();
    };
    const traceOf = (traceId: string) => collector.spans.filter((s) => s.traceId === traceId);

    beforeAll(() => {
      upstream = startUpstream('tr');
      node = startRpcNode('evm');
      collector = startCollector();
    });
    afterAll(async () => {
      for (const t of apps) await t.close();
      await upstream.close();
      node.close();
      collector.close();
    }, 30_000);

    test("one trace per request: the client's trace continued, a span per stage, the upstream call with the GenAI attributes and the upstream sent the same trace", async () => {
      const log = keptLog();
      const t = await start({ enabled: true }, log);
      upstream.requests.length = 0;
      const streamed = await t.request('/chat/completions', {
        method: 'POST',
        json: { ...body, stream: true, stream_options: { include_usage: true } },
        headers: { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` },
      });
      await streamed.text();
      const plain = await t.request('/chat/completions', { method: 'POST', json: body });
      const answer = (await plain.json()) as { choices: { finish_reason: string }[] };
      await exported(t);

      expect(collector.contentTypes[0]).toStartWith('application/json');
      const servers = collector.spans.filter((s) => s.kind === SERVER);
      expect(servers).toHaveLength(2);
      expect(new Set(servers.map((s) => s.traceId)).size).toBe(2);

      // The streamed chat: the client's trace, its span as the server span's parent.
      const spans = traceOf(CLIENT_TRACE);
      const server = spans.find((s) => s.kind === SERVER)!;
      expect(server.parentSpanId).toBe(CLIENT_SPAN);
      expect(server.name).toBe('POST /api/v1/chat/completions');
      expect(server.resource['service.name']).toBe('svc');
      const children = spans.filter((s) => s.parentSpanId === server.spanId);
      expect(children.map((s) => s.name).sort()).toEqual(['chat tr-model', 'svc.admission', 'svc.auth', 'svc.plugins', 'svc.settlement']);
      for (const c of children) {
        expect(c.startNs).toBeGreaterThanOrEqual(server.startNs);
        expect(c.endNs).toBeLessThanOrEqual(server.endNs);
      }
      const call = children.find((s) => s.kind === CLIENT) as CollectedSpan;
      expect(call.events).toContain('svc.upstream.first_byte');
      expect(call.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'tr-up',
        'gen_ai.request.model': 'tr-model',
        'gen_ai.response.model': 'tr-model',
        'gen_ai.usage.output_tokens': 5,
        // Read from the stream's forwarded bytes, which went out untouched.
        'gen_ai.response.finish_reasons': ['stop'],
      });
      expect(call.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
      expect(server.attributes['svc.request_id']).toBe(streamed.headers.get('cf-ray')!);
      expect(server.attributes['svc.account_id']).toBeString();
      expect(server.attributes['svc.api_key_id']).toBeString();
      expect(server.attributes['svc.cost_micros']).toBeGreaterThan(0);
      expect(server.attributes['http.response.status_code']).toBe(200);

      // The upstream saw the same trace, with the upstream call's span as its parent.
      const sent = upstream.requests.map((r) => r.headers.traceparent);
      expect(sent[0]).toBe(`00-${CLIENT_TRACE}-${call.spanId}-01`);

      // The JSON chat started its own trace; its finish reasons are on its spans.
      const plainServer = servers.find((s) => s.traceId !== CLIENT_TRACE)!;
      expect(plainServer.parentSpanId).toBe('');
      expect(sent[1]).toStartWith(`00-${plainServer.traceId}-`);
      expect(plainServer.attributes['gen_ai.response.finish_reasons']).toEqual(answer.choices.map((c) => c.finish_reason));

      // The access-log lines carry the request id and the trace id.
      const access = log.lines.filter((l) => l.msg === 'request' && l.fields?.route === '/api/v1/chat/completions');
      expect(access.map((l) => l.fields?.traceId).sort()).toEqual([CLIENT_TRACE, plainServer.traceId].sort());
      expect(access.map((l) => l.fields?.requestId)).toContain(streamed.headers.get('cf-ray')!);
    });

    test("a stream's finish reasons are on its spans: a tool-call stream's, cut in 7-byte reads, and a decoded stream's", async () => {
      const t = await start({ enabled: true });
      const traced = async (path: string, json: Record<string, unknown>) => {
        const traceId = crypto.randomUUID().replaceAll('-', '');
        const res = await t.request(path, { method: 'POST', json, headers: { traceparent: `00-${traceId}-${CLIENT_SPAN}-01` } });
        expect(res.status).toBe(200);
        await res.text();
        return traceId;
      };
      upstream.set({ toolCalls: [{ name: 'lookup', arguments: '{"q":"finish_reason"}' }], splitBytes: 7 });
      try {
        const tools = await traced('/chat/completions', { ...body, stream: true });
        upstream.set({ finishReason: 'length' });
        // The Responses API decodes the stream to re-encode it: its chunks are read instead.
        const decoded = await traced('/responses', { model: 'tr-model', input: 'trace me', stream: true });
        await exported(t);
        const client = (traceId: string) => traceOf(traceId).find((s) => s.kind === CLIENT)!;
        expect(client(tools).attributes['gen_ai.response.finish_reasons']).toEqual(['tool_calls']);
        expect(client(decoded).attributes['gen_ai.response.finish_reasons']).toEqual(['length']);
        const server = traceOf(tools).find((s) => s.kind === SERVER)!;
        expect(server.attributes['gen_ai.response.finish_reasons']).toEqual(['tool_calls']);
      } finally {
        upstream.set({});
      }
    });

    test("embeddings and RPC calls send the upstream the request's trace, under a client span of it", async () => {
      const t = await start({ enabled: true });
      upstream.requests.length = 0;
      node.traceparents.length = 0;
      // Trace ids of their own: the collector is shared by the tests.
      const embTrace = 'e3'.repeat(16);
      const headers = { traceparent: `00-${embTrace}-${CLIENT_SPAN}-01` };
      const emb = await t.request('/embeddings', { method: 'POST', json: { model: 'tr-emb', input: 'trace me' }, headers });
      expect(emb.status).toBe(200);
      const other = '5a'.repeat(16);
      const chain = await rpc(t, 'ethereum-mainnet', rpcCall(1, 'eth_chainId'), {
        headers: { traceparent: `00-${other}-${CLIENT_SPAN}-01` },
      });
      expect(chain.status).toBe(200);
      await exported(t);
      const clientSpanOf = (traceId: string) => {
        const spans = traceOf(traceId).filter((s) => s.kind === CLIENT);
        expect(spans).toHaveLength(1);
        return spans[0]!;
      };
      const embCall = clientSpanOf(embTrace);
      expect(embCall.name).toBe('embeddings tr-emb');
      expect(upstream.requests.map((r) => [r.path, r.headers.traceparent])).toEqual([
        ['/v1/embeddings', `00-${embTrace}-${embCall.spanId}-01`],
      ]);
      expect(node.traceparents).toEqual([`00-${other}-${clientSpanOf(other).spanId}-01`]);
      expect(clientSpanOf(other).events).toContain('svc.upstream.first_byte');
    });

    test('a warning or error line of a traced request carries its trace id', async () => {
      const log = keptLog();
      const t = await start({ enabled: true }, log);
      // A model whose only replica refuses connections falls back to tr-model, with a warning naming the request.
      const res = await t.request('/chat/completions', {
        method: 'POST',
        json: { ...body, model: 'tr-down', fallbacks: ['tr-model'] },
        headers: { traceparent: `00-${'ab'.repeat(16)}-${CLIENT_SPAN}-01` },
      });
      expect(res.status).toBe(200);
      await exported(t);
      const warned = log.lines.find((l) => l.msg === 'model unavailable, falling back');
      expect(warned?.fields).toMatchObject({ requestId: res.headers.get('cf-ray')!, traceId: 'ab'.repeat(16) });
    });

    test('a sampling ratio of 0 exports nothing; the upstream still gets the trace, flagged unsampled', async () => {
      const t = await start({ enabled: true, sampler: 'traceidratio', samplerArg: 0 });
      const before = collector.spans.length;
      upstream.requests.length = 0;
      for (let i = 0; i < 3; i++) expect((await t.request('/chat/completions', { method: 'POST', json: body })).status).toBe(200);
      await exported(t);
      expect(collector.spans.length).toBe(before);
      expect(upstream.requests).toHaveLength(3);
      for (const r of upstream.requests) expect(r.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-00$/);
    });

    test('off (the default): no tracer, no exporter, and no traceparent sent upstream even when the client sent one', async () => {
      const t = await start(null);
      expect(t.deps.observability!.tracing).toBeNull();
      const before = collector.spans.length;
      upstream.requests.length = 0;
      const res = await t.request('/chat/completions', {
        method: 'POST',
        json: body,
        headers: { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` },
      });
      expect(res.status).toBe(200);
      await exported(t);
      expect(upstream.requests[0]!.headers.traceparent).toBeUndefined();
      // Nor to the other upstreams.
      node.traceparents.length = 0;
      const headers = { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01` };
      const emb = await t.request('/embeddings', { method: 'POST', json: { model: 'tr-emb', input: 'x' }, headers });
      expect(emb.status).toBe(200);
      expect((await rpc(t, 'ethereum-mainnet', rpcCall(1, 'eth_chainId'), { headers })).status).toBe(200);
      expect(upstream.requests.map((r) => [r.path, r.headers.traceparent])).toEqual([
        ['/v1/chat/completions', undefined],
        ['/v1/embeddings', undefined],
      ]);
      expect(node.traceparents).toEqual([null]);
      await exported(t);
      expect(collector.spans.length).toBe(before);
    });
  });
}
