import { startChild, type Child } from '../lib/proc';
import { svcTarget } from '../lib/route-targets';
import type { Target } from '../lib/targets';
import { BENCH_MODEL } from '../servers/svc-config';
import { startSvc, type SvcUnderTest } from '../servers/svc';
import { measureLoad } from './throughput';

/** The features whose price the phase reports, each as a CPU per JSON request with it on and with it off. */
export const FEATURES = ['guardrail_pii', 'guardrail_deny_list', 'guardrail_limits', 'request_log', 'tracing'] as const;
/** A feature the phase measures. */
export type Feature = (typeof FEATURES)[number];

/** CPU µs per JSON request with a feature on and off (medians of interleaved rounds), and the rounds' figures. */
export interface FeatureCost {
  on: number | null;
  off: number | null;
  rounds: { on: (number | null)[]; off: (number | null)[] };
}

/** What the features phase measured on an svc target. */
export type FeaturesResult = Partial<Record<Feature, FeatureCost>>;

/** The median of a measurement's rounds that succeeded, or null when none did. */
function median(xs: (number | null)[]): number | null {
  const ok = xs.filter((x): x is number => x != null).sort((a, b) => a - b);
  if (ok.length === 0) return null;
  const mid = ok.length >> 1;
  return ok.length % 2 === 1 ? ok[mid]! : (ok[mid - 1]! + ok[mid]!) / 2;
}

const chat = (content: string, guardrails?: string[]) =>
  JSON.stringify({
    model: BENCH_MODEL,
    messages: [{ role: 'user', content }],
    max_tokens: 64,
    ...(guardrails ? { svc_parameters: { guardrails } } : {}),
  });

/** The text every request sends: an e-mail address and a card number for pii to redact, words deny_list reads past. */
const TEXT = 'Say hello to ada@example.com and charge 4111 1111 1111 1111 for the ticket to the lighthouse.';
const BODIES = {
  plain: chat(TEXT),
  pii: chat(TEXT, ['pii']),
  denyList: chat(TEXT, ['deny_list']),
  limits: chat(TEXT, ['limits']),
};

/**
 * The second svc's config (request log off): deny_list and limits rules for the per-request
 * runs (they run only when a request asks: the plain requests on it run neither).
 */
const LOG_OFF_CONFIG = {
  observability: { requestLog: { enabled: false } },
  plugins: [
    {
      name: 'deny_list',
      options: {
        deny: [
          { name: 'codename', words: ['apollo', 'zeppelin', 'nightingale'], on: 'both' },
          { name: 'tickets', regex: 'tkt-\\d{4}', on: 'output', action: 'flag' },
        ],
        allow: [{ name: 'mission', phrases: ['apollo 11'] }],
      },
    },
    { name: 'limits', options: { default: { max_input_tokens: 100_000, max_messages: 100, max_images: 10, max_tools: 50 } } },
  ],
};

/** An OTLP/HTTP sink in a child process (its CPU is not svc's): answers every export with 200 and keeps nothing. */
async function startOtlpSink(): Promise<{ child: Child; url: string }> {
  const child = startChild('otlp sink', [
    process.execPath,
    '-e',
    "const s = Bun.serve({ port: 0, hostname: '127.0.0.1', async fetch(r) { await r.arrayBuffer(); return new Response('{}'); } }); console.log('otlp sink on ' + s.port);",
  ]);
  const [, port] = await child.waitFor(/otlp sink on (\d+)/, 10_000);
  return { child, url: `http://127.0.0.1:${port}/v1/traces` };
}

/** What the phase needs from the run: the upstream its svcs call, free ports, its lengths and a log. */
export interface FeaturesSetup {
  upstreamUrl: string;
  freePort: () => Promise<number>;
  /** Interleaved rounds, each measurement's seconds (at 500 req/s, 16 connections), and each svc's warm-up seconds. */
  rounds: number;
  phaseS: number;
  warmS: number;
  log?: (msg: string) => void;
}

/**
 * The new features' price (issue 50, item 7): CPU per JSON request (500 req/s) with each
 * feature on and off. The request log (on by default) and tracing (off by default) are a
 * process's config, so the phase starts three embedded svcs of its own on the run's upstream,
 * alike but for one setting and warmed alike (the run's svc carries its earlier phases' heap
 * and tables, which a comparison with a fresh process would charge to the feature): the
 * defaults, the request log off, tracing on (every request sampled and exported to a sink).
 * Guardrails are turned on per request (`svc_parameters.guardrails`) on the same process as
 * their off runs. Every measurement runs once per round, the rounds interleaved, and each
 * figure is the median of its rounds. 75-90 s in a full run on a loaded 2-core machine (the
 * three svcs' first starts 15-26 s, 3 s warm-ups, 3 rounds of 1.5 s, each measurement ~1 s of
 * load-tool start and ledger wait besides), ~40 s with --quick.
 */
export async function featuresPhase(s: FeaturesSetup): Promise<FeaturesResult> {
  const log = s.log ?? (() => {});
  const sink = await startOtlpSink();
  const extra: SvcUnderTest[] = [];
  try {
    const start = async (name: string, config: Record<string, unknown>) => {
      const svc = await startSvc({ port: await s.freePort(), upstreamUrl: s.upstreamUrl, backend: 'memory+pglite', config });
      extra.push(svc);
      return svcTarget(name, svc);
    };
    const [defaults, logOff, traced] = await Promise.all([
      start('svc (defaults)', {}),
      start('svc (request log off)', LOG_OFF_CONFIG),
      start('svc (tracing on)', { observability: { tracing: { enabled: true, endpoint: sink.url } } }),
    ]);
    log('features: three svcs started, warming them');
    const runs = {
      plain: [defaults, BODIES.plain],
      pii: [defaults, BODIES.pii],
      logOff: [logOff, BODIES.plain],
      denyList: [logOff, BODIES.denyList],
      limits: [logOff, BODIES.limits],
      traced: [traced, BODIES.plain],
    } as const satisfies Record<string, readonly [Target, string]>;
    type Run = keyof typeof runs;
    const figures = Object.fromEntries(Object.keys(runs).map((k) => [k, [] as (number | null)[]])) as Record<Run, (number | null)[]>;
    // Warm-up at full speed, each process's JIT; a guardrail's own path warms in its first
    // round, which the median of three passes over.
    for (const t of [defaults, logOff, traced]) await measureLoad(t, BODIES.plain, { connections: 16, durationS: s.warmS });
    for (let r = 0; r < s.rounds; r++) {
      log(`features: round ${r + 1} of ${s.rounds}`);
      for (const [name, [target, body]] of Object.entries(runs) as [Run, readonly [Target, string]][]) {
        const m = await measureLoad(target, body, { connections: 16, durationS: s.phaseS, rate: 500 });
        figures[name].push(m.failureRate > 0.01 ? null : m.cpuPerRequestUs);
      }
    }
    const cost = (on: Run, off: Run): FeatureCost => ({
      on: median(figures[on]),
      off: median(figures[off]),
      rounds: { on: figures[on], off: figures[off] },
    });
    return {
      guardrail_pii: cost('pii', 'plain'),
      guardrail_deny_list: cost('denyList', 'logOff'),
      guardrail_limits: cost('limits', 'logOff'),
      request_log: cost('plain', 'logOff'),
      tracing: cost('traced', 'plain'),
    };
  } finally {
    await Promise.all(extra.map((svc) => svc.close().catch(() => {})));
    await sink.child.stop().catch(() => {});
  }
}
