/**
 * `bun bench/tools/features-cost.ts [--quick]`: the features phase alone (bench/phases/features.ts,
 * as `bun run bench` runs it): starts the bench upstream and the bare proxy, measures the bare
 * proxy's JSON request at the phase's rate for the rows' bare column, runs the phase (which
 * starts its own svcs) and prints its rows (bench/lib/feature-rows.ts).
 */
import { startBaseline } from '../lib/baseline';
import { featureRows } from '../lib/feature-rows';
import { killAll } from '../lib/proc';
import { bareTarget } from '../lib/route-targets';
import { BODIES } from '../lib/targets';
import { featuresPhase } from '../phases/features';
import { measureLoad, type ThroughputResult } from '../phases/throughput';
import { formatTable } from '../report';

const quick = Bun.argv.includes('--quick');

async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

const { upstreamUrl, bare, bareUrl } = await startBaseline({ BUN_CONFIG_MAX_HTTP_REQUESTS: '65535' });
try {
  const bareT = bareTarget(bareUrl, bare);
  await measureLoad(bareT, BODIES.json, { connections: 16, durationS: 2 });
  const bareJson = await measureLoad(bareT, BODIES.json, { connections: 16, durationS: 3, rate: 500 });
  const t0 = performance.now();
  const log = (msg: string) => console.log(`[${((performance.now() - t0) / 1000).toFixed(1)} s] ${msg}`);
  const setup = { upstreamUrl, freePort, rounds: quick ? 2 : 3, phaseS: quick ? 1 : 1.5, warmS: quick ? 2 : 3, log };
  const features = await featuresPhase(setup);
  log('features phase done');
  console.log(JSON.stringify(features));
  const data = {
    backends: ['memory+pglite'],
    features: { 'svc:memory+pglite': features },
    throughput: { bare: { cpuPerRequest: bareJson } as ThroughputResult },
  };
  console.log(formatTable(featureRows(data), data.backends));
} finally {
  killAll();
}
process.exit(0);
