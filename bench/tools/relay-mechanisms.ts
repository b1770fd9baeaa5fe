/**
 * `bun bench/tools/relay-mechanisms.ts`: what relaying a stream costs by mechanism, apart from
 * everything else svc does (no Elysia, no auth, no meter). A small server (this file with
 * `--serve MODE`, its own process) relays the bench upstream's `/chat/completions` stream one way:
 *
 * - `native`: `new Response(upstream.body)`: Bun pipes the fetch body to the socket, no JS per
 *   chunk; it sees nothing of the bytes (no usage, no tail to change): the floor.
 * - `proxy`: svc's relay (`proxyStream` of src/stream/proxy.ts, zero-copy tap, a direct stream
 *   written and flushed per read), with a `finish` that returns nothing.
 * - `tee-tail`: `tee()`; the client's branch goes to `new Response(branch)`, the other is read
 *   by a reader that keeps the last 4 KB (where the usage report is).
 * - `tee-end`: `tee()`; the other branch is read whole by `Bun.readableStreamToArrayBuffer`
 *   and only its tail looked at, once it has ended.
 *
 * For each mode, interleaved over `--rounds`: CPU per stream at a fixed rate (50-chunk streams
 * sent in one go, `--rate`/s for `--seconds`, after a warm-up of as long), and RSS holding
 * `--hold` streams paced 20 ms a chunk (growth over the settled idle RSS, per stream).
 * Flags: --modes a,b (default all), --rounds N (default 3), --rate R (300), --seconds S (6), --hold N (2000, 0 to skip).
 */
import { openStreamsPhase } from '../phases/open-streams';
import { measureLoad } from '../phases/throughput';
import { startChild } from '../lib/proc';
import { BODIES, upstreamControl, type Target } from '../lib/targets';

const argv = Bun.argv.slice(2);
const arg = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);

const MODES = ['native', 'proxy', 'tee-tail', 'tee-end'] as const;
type Mode = (typeof MODES)[number];

if (arg('--serve')) await serve(arg('--serve') as Mode, process.env.UPSTREAM_URL!);
else await compare();

/** The relay server of one mode. */
async function serve(mode: Mode, upstreamUrl: string) {
  const { proxyStream } = await import('../../src/stream/proxy');
  const headers = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
  const tail = (bytes: Uint8Array) => bytes.subarray(Math.max(0, bytes.length - 4096));
  let tails = 0;
  const server = Bun.serve({
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const abort = new AbortController();
      const res = await fetch(`${upstreamUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: await req.text(),
        signal: abort.signal,
      });
      const body = res.body!;
      if (mode === 'native') return new Response(body, { headers });
      if (mode === 'proxy')
        return new Response(
          proxyStream({
            upstream: body,
            transforms: [],
            leading: [],
            pingIntervalMs: 15_000,
            abortUpstream: () => abort.abort(),
            finish: async () => null,
          }),
          { headers },
        );
      const [client, mine] = body.tee();
      if (mode === 'tee-tail')
        void (async () => {
          const reader = mine.getReader();
          let last: Uint8Array | null = null;
          for (let r = await reader.read(); !r.done; r = await reader.read()) last = r.value;
          if (last) tails += tail(last).length;
        })().catch(() => {});
      else
        void Promise.resolve(Bun.readableStreamToArrayBuffer(mine))
          .then((b: ArrayBuffer) => (tails += tail(new Uint8Array(b)).length))
          .catch(() => {});
      return new Response(client, { headers });
    },
  });
  process.stdout.write(`relay ${mode} listening on ${server.port}\n`);
  process.on('SIGTERM', () => process.exit(tails >= 0 ? 0 : 1));
}

async function compare() {
  const modes = (arg('--modes')?.split(',') ?? [...MODES]) as Mode[];
  const rounds = Number(arg('--rounds') ?? 3);
  const rate = Number(arg('--rate') ?? 300);
  const seconds = Number(arg('--seconds') ?? 6);
  const hold = Number(arg('--hold') ?? 2000);
  const upstream = startChild('upstream', [process.execPath, 'bench/servers/upstream.ts'], { BUN_CONFIG_MAX_HTTP_REQUESTS: '65535' });
  const [, upPort] = await upstream.waitFor(/upstream listening on (\d+)/, 10_000);
  const up = upstreamControl(`http://127.0.0.1:${upPort}`);
  const out: Record<string, { cpu: number[]; kb: number[] }> = {};
  try {
    for (let round = 0; round < rounds; round++)
      for (const mode of modes) {
        const relay = startChild(`relay ${mode}`, [process.execPath, import.meta.path, '--serve', mode], {
          UPSTREAM_URL: `http://127.0.0.1:${upPort}/v1`,
          BUN_CONFIG_MAX_HTTP_REQUESTS: '65535',
        });
        try {
          const [, port] = await relay.waitFor(/listening on (\d+)/, 10_000);
          const url = `http://127.0.0.1:${port}/chat/completions`;
          const target: Target = { name: mode, chatUrl: url, embeddingsUrl: url, headers: {}, pid: relay.pid };
          await up.shape(50, 0);
          await measureLoad(target, BODIES.stream, { connections: 16, durationS: seconds });
          const cpu = await measureLoad(target, BODIES.stream, { connections: 16, durationS: seconds, rate });
          const row = (out[mode] ??= { cpu: [], kb: [] });
          row.cpu.push(cpu.cpuPerRequestUs ?? Number.NaN);
          let line = `round ${round + 1} ${mode}: ${cpu.cpuPerRequestUs} µs CPU a stream (${cpu.requests} streams, ${cpu.non2xx + cpu.errors} failed)`;
          if (hold > 0) {
            const held = await openStreamsPhase(target, up, BODIES.stream, { count: hold, holdMs: 1500, timeoutMs: 30_000 });
            const kb = held.growthMB !== null && held.opened > 0 ? Math.round((held.growthMB * 1024) / held.opened) : Number.NaN;
            row.kb.push(kb);
            line += `; holding ${held.opened} streams: idle ${Math.round(held.idleRssMB)} MB, +${held.growthMB} MB = ${kb} KB a stream`;
          }
          process.stdout.write(`${line}\n`);
        } finally {
          await relay.stop();
        }
      }
  } finally {
    await upstream.stop();
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const [mode, r] of Object.entries(out))
    process.stdout.write(
      `${mode}: CPU a stream ${r.cpu.join(' / ')} µs (median ${median(r.cpu)})` +
        (r.kb.length ? `; memory per open stream ${r.kb.join(' / ')} KB (median ${median(r.kb)})` : '') +
        '\n',
    );
}
