/**
 * `bun bench/tools/open-streams-rss.ts`: what an open stream costs svc in memory, alone. Starts the
 * bench upstream and one svc (fresh data dir, as `npm run bench` starts it), then, as the full
 * run's open-streams phase does (bench/phases/open-streams.ts: upstream paced 20 ms a chunk),
 * holds a warm-up round of streams, then `--count` streams, and prints svc's settled idle RSS
 * before each round, its RSS holding them, and the growth per stream. Also the RSS after svc
 * is told to collect (`--gc`: a probe preloaded into svc, bench/lib/memory-probe.ts, on
 * SIGUSR2), which splits live memory from garbage the load left.
 *
 * Flags: --count N (default 3000), --warmup N (default 1000, 0 for none), --hold-ms MS (how long the
 * streams are held before the reading, default 1500, as the bench), --runs N (default 1),
 * --cwd DIR[,DIR...] (checkouts interleaved run by run), --backend memory+pglite|redis+postgres,
 * --gc. Environment variables pass through to svc as in bench/load-rss.ts (`SVC_ENV`).
 */
import { join } from 'node:path';
import { openStreamsPhase, type OpenStreamsResult } from '../phases/open-streams';
import { rssBytes, startChild } from '../lib/proc';
import { BODIES, upstreamControl, type Target } from '../lib/targets';
import { startSvc, svcEnvFromProcess } from '../servers/svc';

const MB = 1024 * 1024;
const argv = Bun.argv.slice(2);
const arg = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const count = Number(arg('--count') ?? 3000);
const warmup = Number(arg('--warmup') ?? 1000);
const runs = Number(arg('--runs') ?? 1);
const gc = argv.includes('--gc');
const holdMs = Number(arg('--hold-ms') ?? 1500);
const backend = (arg('--backend') ?? 'memory+pglite') as 'memory+pglite' | 'redis+postgres';
const dirs = (arg('--cwd') ?? process.cwd()).split(',');

function freePort(): number {
  const s = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

const timeoutMs = Math.max(20_000, count * 9) + holdMs;
const upstream = startChild('upstream', [process.execPath, 'bench/servers/upstream.ts'], { BUN_CONFIG_MAX_HTTP_REQUESTS: '65535' });
const [, upPort] = await upstream.waitFor(/upstream listening on (\d+)/, 10_000);
const up = upstreamControl(`http://127.0.0.1:${upPort}`);
const rows: { cwd: string; r: OpenStreamsResult; afterGcMB: number | null }[] = [];
try {
  for (let run = 0; run < runs; run++) {
    for (const cwd of dirs) {
      const extraArgs = gc ? ['--preload', join(import.meta.dir, '../lib/memory-probe.ts')] : [];
      const svc = await startSvc({
        port: freePort(),
        upstreamUrl: `http://127.0.0.1:${upPort}/v1`,
        backend,
        cwd,
        extraArgs,
        maxHttpRequests: String(count + 1000),
        env: svcEnvFromProcess(),
      });
      try {
        const target: Target = {
          name: `svc:${backend}`,
          chatUrl: `${svc.url}/chat/completions`,
          embeddingsUrl: `${svc.url}/embeddings`,
          headers: { authorization: `Bearer ${svc.key}` },
          pid: svc.child.pid,
        };
        if (warmup > 0) await openStreamsPhase(target, up, BODIES.stream, { count: warmup, holdMs: 300, timeoutMs });
        let afterGcMB: number | null = null;
        const r = await openStreamsPhase(target, up, BODIES.stream, {
          count,
          holdMs,
          timeoutMs,
          // Read while the streams are still held: the collection's RSS, not the idle one after.
          onHolding: gc
            ? async () => {
                process.kill(svc.child.pid, 'SIGUSR2');
                await svc.child.waitFor(/^memprobe 1 .*/, 20_000).catch(() => null);
                await Bun.sleep(1000);
                afterGcMB = Math.round(rssBytes(svc.child.pid) / MB);
              }
            : undefined,
        });
        rows.push({ cwd, r, afterGcMB });
        const perStreamKB = r.growthMB !== null && r.opened > 0 ? Math.round((r.growthMB * 1024) / r.opened) : null;
        process.stdout.write(
          `${cwd}: idle ${Math.round(r.idleRssMB)} MB, holding ${r.opened}/${r.requested} streams (${r.failed} failed, opened in ${r.openMs} ms) ` +
            `${r.holdingRssMB} MB, growth ${r.growthMB} MB = ${perStreamKB} KB a stream` +
            (gc ? `; after a full collection while holding ${afterGcMB} MB` : '') +
            (r.note ? ` (${r.note})` : '') +
            '\n',
        );
      } finally {
        await svc.close();
      }
    }
  }
} finally {
  await upstream.stop();
}
for (const cwd of dirs) {
  const mine = rows.filter((x) => x.cwd === cwd);
  process.stdout.write(
    `${cwd}: holding ${mine.map((x) => x.r.holdingRssMB).join('/')} MB, growth ${mine.map((x) => x.r.growthMB).join('/')} MB\n`,
  );
}
