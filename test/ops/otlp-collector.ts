/** One span as an OTLP/HTTP JSON export carries it, with its attributes flattened. */
export interface CollectedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, unknown>;
  events: string[];
  status: { code?: number; message?: string };
  resource: Record<string, unknown>;
}

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};
type KeyValue = { key: string; value: AnyValue };

function valueOf(v: AnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(valueOf);
  return null;
}

const flat = (kvs: KeyValue[] | undefined) => Object.fromEntries((kvs ?? []).map((kv) => [kv.key, valueOf(kv.value)]));

/** A fake OpenTelemetry collector on 127.0.0.1 that takes OTLP/HTTP JSON trace exports at /v1/traces. */
export function startCollector() {
  const spans: CollectedSpan[] = [];
  const contentTypes: string[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      if (req.method !== 'POST' || new URL(req.url).pathname !== '/v1/traces') return new Response('not found', { status: 404 });
      contentTypes.push(req.headers.get('content-type') ?? '');
      const body = (await req.json()) as {
        resourceSpans?: {
          resource?: { attributes?: KeyValue[] };
          scopeSpans?: {
            spans?: {
              traceId: string;
              spanId: string;
              parentSpanId?: string;
              name: string;
              kind: number;
              startTimeUnixNano: string;
              endTimeUnixNano: string;
              attributes?: KeyValue[];
              events?: { name: string }[];
              status?: { code?: number; message?: string };
            }[];
          }[];
        }[];
      };
      for (const rs of body.resourceSpans ?? [])
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? '',
              name: s.name,
              kind: s.kind,
              startNs: BigInt(s.startTimeUnixNano),
              endNs: BigInt(s.endTimeUnixNano),
              attributes: flat(s.attributes),
              events: (s.events ?? []).map((e) => e.name),
              status: s.status ?? {},
              resource: flat(rs.resource?.attributes),
            });
      return Response.json({});
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/v1/traces`,
    spans,
    contentTypes,
    close: () => server.stop(true),
  };
}
