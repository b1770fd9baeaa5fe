import { existsSync } from 'node:fs';
import { startChild, withTimeout } from '../lib/proc';

/** What one load phase produced. */
export interface LoadResult {
  tool: string;
  connections: number;
  durationS: number;
  requests: number;
  rps: number;
  non2xx: number;
  errors: number;
  latencyMs: { p50: number; p99: number };
}

/** A load phase: POST `body` to `url` over `connections` for `durationS` (optionally at a fixed rate). */
export interface LoadSpec {
  url: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  durationS: number;
  /** Requests per second over all connections; max rate when absent. */
  rate?: number;
  /** Replace `[<id>]` in the body with a new random id per request (autocannon's `-I`): every body differs. */
  idReplacement?: boolean;
}

const AUTOCANNON = 'node_modules/autocannon/autocannon.js';

/** The load tool in use: autocannon under Node when Node exists (as it is built for), else under Bun. */
export function loadTool() {
  const node = Bun.which('node');
  return { name: node ? 'autocannon (node)' : 'autocannon (bun)', runtime: node ?? process.execPath };
}

/**
 * Runs autocannon in its own process for a bounded time and parses its JSON summary.
 * wrk is not used even when installed: it cannot send the per-target JSON body without
 * a Lua script, and autocannon's numbers were the ones the targets were set with.
 */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  if (!existsSync(AUTOCANNON)) throw new Error(`${AUTOCANNON} missing: run npm install`);
  const { name, runtime } = loadTool();
  const args = [
    runtime,
    AUTOCANNON,
    '--json',
    '-n',
    '-c',
    String(spec.connections),
    '-d',
    String(spec.durationS),
    '-m',
    'POST',
    '-t',
    '10',
  ];
  for (const [k, v] of Object.entries(spec.headers)) args.push('-H', `${k}=${v}`);
  if (spec.rate) args.push('-R', String(spec.rate));
  if (spec.idReplacement) args.push('-I');
  args.push('-b', spec.body, spec.url);
  const child = startChild('autocannon', args);
  try {
    const [json] = await child.waitFor(/^\{.*"requests".*\}$/, (spec.durationS + 20) * 1000);
    const r = JSON.parse(json!) as {
      requests: { total: number; average: number };
      duration: number;
      non2xx: number;
      errors: number;
      timeouts: number;
      latency: { p50: number; p99: number };
    };
    await withTimeout('autocannon exit', 5000, child.proc.exited).catch(() => {});
    return {
      tool: name,
      connections: spec.connections,
      durationS: r.duration,
      requests: r.requests.total,
      rps: Math.round(r.requests.total / r.duration),
      non2xx: r.non2xx,
      errors: r.errors + r.timeouts,
      latencyMs: { p50: r.latency.p50, p99: r.latency.p99 },
    };
  } finally {
    await child.stop();
  }
}
