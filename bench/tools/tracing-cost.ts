/**
 * `bun bench/tools/tracing-cost.ts [--rounds 3] [--requests 10000] [--stream]`: svc's CPU per chat
 * request with OpenTelemetry tracing off, on (every request sampled, spans built and exported
 * over OTLP/HTTP) and on but unsampled (ratio 0: ids and `traceparent` only), each a fresh
 * `bench/in-process.ts` process, interleaved over rounds; prints the medians and the ratios
 * to the off runs of the same invocation.
 */
export {};

const argv = Bun.argv.slice(2);
const opt = (name: string, dflt: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1]! : dflt);
const rounds = Number(opt('--rounds', '3'));
const passOn = ['--requests', opt('--requests', '10000'), ...(argv.includes('--stream') ? ['--stream'] : [])];
const MODES = { off: [], on: ['--tracing'], unsampled: ['--tracing-unsampled'] } as const;
type Mode = keyof typeof MODES;

/** One in-process run's µs of CPU per request. */
async function once(extra: readonly string[]): Promise<number> {
  const child = Bun.spawn([process.execPath, 'bench/in-process.ts', ...passOn, ...extra], { stdout: 'pipe', stderr: 'inherit' });
  const out = await new Response(child.stdout).text();
  await child.exited;
  const m = /([\d.]+) us CPU per request/.exec(out);
  if (!m) throw new Error(`no CPU figure in: ${out}`);
  process.stdout.write(out);
  return Number(m[1]);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const runs: Record<Mode, number[]> = { off: [], on: [], unsampled: [] };
for (let r = 0; r < rounds; r++) for (const mode of Object.keys(MODES) as Mode[]) runs[mode].push(await once(MODES[mode]));
const off = median(runs.off);
process.stdout.write(
  `\ntracing cost (${passOn.join(' ')}, median of ${rounds}): off ${off.toFixed(1)} us CPU per request; ` +
    `on ${median(runs.on).toFixed(1)} us (x${(median(runs.on) / off).toFixed(2)}); ` +
    `on, unsampled ${median(runs.unsampled).toFixed(1)} us (x${(median(runs.unsampled) / off).toFixed(2)})\n`,
);
