import { describe, expect, test } from 'bun:test';
import { Value } from '@sinclair/typebox/value';
import { TracingConfigSchema, tracingSettings, type TracingConfig } from '../../src/tracing/config';
import { formatTraceparent, parseTraceparent } from '../../src/tracing/traceparent';

const defaults = Value.Default(TracingConfigSchema, {}) as TracingConfig;

describe('tracing settings: the OTEL_* variables over observability.tracing', () => {
  test('off by default; the config or OTEL_TRACES_EXPORTER=otlp turns it on, none and OTEL_SDK_DISABLED turn it off', () => {
    expect(tracingSettings(defaults, {})).toBeNull();
    expect(tracingSettings({ ...defaults, enabled: true }, {})).not.toBeNull();
    expect(tracingSettings(defaults, { OTEL_TRACES_EXPORTER: 'otlp' })).not.toBeNull();
    expect(tracingSettings({ ...defaults, enabled: true }, { OTEL_TRACES_EXPORTER: 'none' })).toBeNull();
    expect(tracingSettings({ ...defaults, enabled: true }, { OTEL_SDK_DISABLED: 'true' })).toBeNull();
    expect(() => tracingSettings(defaults, { OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow('OTEL_TRACES_EXPORTER');
  });

  test('endpoint, headers, service name and sampler from the variables', () => {
    const on = { ...defaults, enabled: true, headers: { a: '1' } };
    expect(tracingSettings(on, {})).toMatchObject({
      endpoint: 'http://localhost:4318/v1/traces',
      serviceName: 'svc',
      sampler: 'parentbased_always_on',
    });
    expect(tracingSettings(on, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' })!.endpoint).toBe('http://c:4318/v1/traces');
    expect(
      tracingSettings(on, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t/x' })!.endpoint,
    ).toBe('http://t/x');
    expect(tracingSettings(on, { OTEL_EXPORTER_OTLP_HEADERS: 'a=2,b=x%3Dy', OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'c=3' })!.headers).toEqual({
      a: '2',
      b: 'x=y',
      c: '3',
    });
    expect(tracingSettings(on, { OTEL_SERVICE_NAME: 'gw' })!.serviceName).toBe('gw');
    expect(tracingSettings(on, { OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' })).toMatchObject({
      sampler: 'traceidratio',
      samplerArg: 0.25,
    });
    expect(() => tracingSettings(on, { OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow('OTEL_TRACES_SAMPLER');
    expect(() => tracingSettings(on, { OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow('OTEL_TRACES_SAMPLER_ARG');
  });
});

describe('traceparent', () => {
  const trace = '4bf92f3577b34da6a3ce929d0e0e4736';
  const span = '00f067aa0ba902b7';
  test('parses a valid header and refuses invalid ones', () => {
    expect(parseTraceparent(`00-${trace}-${span}-01`)).toEqual({ traceId: trace, spanId: span, sampled: true });
    expect(parseTraceparent(`00-${trace}-${span}-00`)!.sampled).toBe(false);
    // A later version may add fields; version 00 may not.
    expect(parseTraceparent(`01-${trace}-${span}-01-extra`)!.traceId).toBe(trace);
    for (const bad of [
      null,
      '',
      `00-${trace}-${span}-01-extra`,
      `ff-${trace}-${span}-01`,
      `00-${'0'.repeat(32)}-${span}-01`,
      `00-${trace}-${'0'.repeat(16)}-01`,
      `00-${trace.toUpperCase()}-${span}-01`,
    ])
      expect(parseTraceparent(bad)).toBeNull();
  });
  test('formats what it parses', () => {
    expect(parseTraceparent(formatTraceparent(trace, span, true))).toEqual({ traceId: trace, spanId: span, sampled: true });
  });
});
