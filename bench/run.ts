/**
 * `bun run bench`: svc's cost as ratios against a bare pass-through proxy from the same run.
 * Starts its own upstream, bare proxy and svc processes on 127.0.0.1, drives load from separate
 * processes, prints the table and writes bench/results/latest.json (and, for full runs, the
 * table in docs/benchmarks.md). Flags: --quick (under 5 minutes, no 10k-stream phase), --short
 * (throughput and TTFB only, writes nothing),
 * --soak <seconds> (default 300, shortened to fit the budget of about 11 minutes), --no-10k, --peers
 * (other gateways against the same upstream, as their users run them: bench/lib/peers.ts). Every
 * phase is bounded; children are killed on exit and on SIGINT.
 */
import { startBaseline } from './lib/baseline';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildRows } from './metrics';
import { newRunData, type RunData } from './lib/run-data';
import { imageInput, validateInChild } from './lib/image-inputs';
import { cachePhase } from './phases/cache';
import { featuresPhase } from './phases/features';
import { imagesPhase } from './phases/images';
import { openStreamsPhase } from './phases/open-streams';
import { openStreamsRounds } from './phases/open-streams-rounds';
import { soakPhase } from './phases/soak';
import { throughputPhases } from './phases/throughput';
import { ttfbPhase } from './phases/ttfb';
import { peersPhase } from './phases/peers';
import { familiesPhase } from './phases/families';
import { bareTarget, svcTarget } from './lib/route-targets';
import { killAll, settledRss, startChild, withTimeout } from './lib/proc';
import { rssAround, type RssAroundLoad } from './lib/rss-around';
import { BODIES, upstreamControl, type Target } from './lib/targets';
import { formatTable, markdownTable, updateReadme, writeJson } from './report';
import { probeSvc } from './probe';
import { startSvc, type SvcUnderTest } from './servers/svc';
import { backingServices, type Backing } from './lib/backing-cpu';
import { hasRedisServer, startPrivateRedis, type PrivateRedis } from './lib/private-redis';

const argv = Bun.argv.slice(2);
const quick = argv.includes('--quick');
// Throughput and TTFB only (about a minute), for checking a hot-path change; writes nothing.
const short = argv.includes('--short');
const soakFlag = argv.indexOf('--soak');
const soakS = soakFlag >= 0 ? Number(argv[soakFlag + 1]) : quick ? 20 : 300;
// The 10,000-stream phase needs about a minute per proxy: the full run has it, --quick does not.
const with10k = !argv.includes('--no-10k') && !quick;
// --peers: other gateways (bench/phases/peers.ts), installed on demand, measured in the same run.
const withPeers = argv.includes('--peers');
const started = Date.now();
/** Hard budget for the whole run; the soak is shortened to fit it. */
// The families phase (speech, /responses, RPC, jobs on every target) took ~80 s of it from the
// soak, the 10-second warm-ups (5 s before) ~70 s more, which the budget grew by.
// The features phase (three svcs of its own, on/off rounds) 75-90 s of it, ~40 s with --quick;
// the jobs' 12-second warm-up (2 s before) 30 s more, 9 s with --quick.
// --peers adds the peers phase's own time to it (measured as it runs, 2-4 minutes): otherwise
// the peers took that time from the 10,000-stream phase, which the budget then skipped.
let budgetMs = (quick ? 330 : 805) * 1000;
const log = (msg: string) => process.stdout.write(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(3)}s] ${msg}\n`);

process.on('SIGINT', () => {
  killAll();
  process.exit(130);
});

const MB = 1024 * 1024;

async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

async function main() {
  const data = await newRunData(quick ? 'quick' : 'full');
  /** Runs one phase; a failure is noted and the run goes on, so the table still prints. */
  const attempt = async <T>(what: string, fn: () => Promise<T>): Promise<T | null> => {
    try {
      return await fn();
    } catch (error) {
      const msg = `${what} failed: ${String((error as Error).message).split('\n')[0]}`;
      data.notes.push(msg);
      log(msg);
      return null;
    }
  };
  // The media-jobs upstream of the families phase, in a process of its own.
  const jobsUpstream = startChild('jobs upstream', [process.execPath, 'bench/servers/upstream-jobs.ts']);
  const jobsUrl = `http://127.0.0.1:${(await jobsUpstream.waitFor(/jobs upstream listening on (\d+)/, 10_000))[1]}`;
  const { upstream, upstreamRoot, upstreamUrl, bare, bareUrl } = await startBaseline({
    BUN_CONFIG_MAX_HTTP_REQUESTS: '65535',
    JOBS_URL: jobsUrl,
  });
  const up = upstreamControl(upstreamRoot);
  const targets: Target[] = [bareTarget(bareUrl, bare)];
  data.idleRssMB.bare = Math.round((await settledRss(bare.pid, 500, 10_000)) / MB);
  const direct: Target = {
    name: 'direct',
    chatUrl: `${upstreamUrl}/chat/completions`,
    embeddingsUrl: `${upstreamUrl}/embeddings`,
    headers: {},
    pid: upstream.pid,
  };

  const backends: ('memory+pglite' | 'redis+postgres')[] = ['memory+pglite'];
  if (process.env.DATABASE_URL && process.env.REDIS_URL) backends.push('redis+postgres');
  else data.notes.push('redis+postgres skipped: set DATABASE_URL and REDIS_URL to include it');
  const svcs: SvcUnderTest[] = [];
  const backings: Backing[] = [];
  let pluginActive = false;
  // svc on redis+postgres gets a redis-server of its own when one can be started here: the
  // shared REDIS_URL serves other processes too, whose commands would count in its CPU.
  let ownRedis: PrivateRedis | null = null;
  if (backends.includes('redis+postgres') && hasRedisServer()) ownRedis = await startPrivateRedis().catch(() => null);
  const redisUrl = ownRedis?.url ?? process.env.REDIS_URL;
  if (backends.includes('redis+postgres'))
    data.notes.push(
      ownRedis
        ? `redis+postgres: svc on a redis-server of its own (${ownRedis.url}); its CPU per request is read from /proc`
        : 'redis+postgres: svc on REDIS_URL (no redis-server here to start one of its own): its CPU counts every client of that server',
    );
  try {
    for (const backend of backends) {
      log(`starting svc on ${backend}`);
      const svc = await startSvc({ port: await freePort(), upstreamUrl, jobsUrl, backend, redisUrl }).catch((e: Error) => {
        data.unavailable[backend] = `svc did not start: ${e.message.split('\n')[0]}`;
        return null;
      });
      if (!svc) continue;
      svcs.push(svc);
      const target = svcTarget(`svc:${backend}`, svc);
      if (svc.databaseUrl && redisUrl) {
        const backing = await backingServices(redisUrl, svc.databaseUrl).catch(() => null);
        if (backing) backings.push((target.backing = backing));
      }
      // Right after start, before any request: a fresh data dir, so PGlite's first start.
      data.idleRssMB[target.name] = Math.round((await settledRss(target.pid, 500, 10_000)) / MB);
      const probe = await probeSvc(target);
      if (!probe.ok) {
        data.unavailable[backend] = probe.reason;
        continue;
      }
      pluginActive ||= probe.stripThinkingActive;
      data.backends.push(backend);
      targets.push(target);
    }
    if (!pluginActive && data.backends.length > 0)
      data.notes.push('strip_thinking_response had no effect (plugin not registered yet): plugin figures unavailable');
    const d = quick ? { settleS: 2, warmS: 1, phaseS: 2 } : { settleS: 10, warmS: 1, phaseS: 3 };

    // RSS 10 s after a target's throughput phases, read while the next target's run (its own
    // process idles meanwhile): the memory the load took, and what came back.
    const rssReads = new Map<string, Promise<RssAroundLoad>>();
    for (const t of targets) {
      log(`throughput phases on ${t.name}`);
      await up.shape(50, 0);
      const rss = rssAround(t.pid);
      const bodies = {
        json: BODIES.json,
        stream: BODIES.stream,
        streamStripThinking: t.name !== 'bare' && pluginActive ? BODIES.streamStripThinking : undefined,
        embeddings: BODIES.embeddings,
      };
      const r = await attempt(`throughput on ${t.name}`, () =>
        withTimeout(`throughput ${t.name}`, 120_000, throughputPhases(t, bodies, d, up)),
      );
      if (r) data.throughput[t.name] = r;
      // From the last request's completion, not from the end of the ledger's drain that follows it.
      rssReads.set(t.name, rss.after(10_000, r?.rps256.endedAt));
    }

    if (!short)
      for (const t of targets) {
        // The target's RSS reading first: its families load must not land in it.
        data.rssAroundLoad[t.name] = await rssReads.get(t.name)!;
        log(`families on ${t.name}: speech, /responses streams, JSON-RPC batches, media jobs`);
        const r = await attempt(`families on ${t.name}`, () =>
          withTimeout(
            `families ${t.name}`,
            120_000,
            familiesPhase(t, t.families!, { ...d, familyWarmS: quick ? 1 : 2, jobsWarmS: quick ? 4 : 12 }),
          ),
        );
        if (r) data.families[t.name] = r;
        for (const e of r?.errors ?? []) data.notes.push(`families on ${t.name}: ${e}`);
      }
    else for (const [name, read] of rssReads) data.rssAroundLoad[name] = await read;

    // After the families phase, which waits for each target's RSS reading: this load must not land in it.
    if (!short)
      for (const t of targets) {
        if (t.name === 'bare') continue;
        log(`response cache on ${t.name}: hits (JSON, stream) and misses`);
        await up.shape(50, 0);
        const r = await attempt(`cache on ${t.name}`, () => withTimeout(`cache ${t.name}`, 60_000, cachePhase(t, d)));
        if (r) data.cache[t.name] = r;
      }

    // The new features' price, reported under the embedded backend (the phase starts embedded svcs of its own).
    const embedded = targets.find((t) => t.name === 'svc:memory+pglite');
    if (!short && embedded) {
      log('features: guardrails, request log, tracing, each on and off');
      await up.shape(50, 0);
      const setup = { upstreamUrl, freePort, rounds: quick ? 2 : 3, phaseS: quick ? 1 : 1.5, warmS: quick ? 2 : 3, log };
      const r = await attempt('features', () => withTimeout('features', 180_000, featuresPhase(setup)));
      if (r) data.features[embedded.name] = r;
    }

    if (withPeers) {
      const peersStarted = Date.now();
      const svcTp = data.throughput['svc:memory+pglite'];
      data.peers = await attempt('peers', () =>
        withTimeout(
          'peers',
          240_000,
          peersPhase(
            upstreamUrl,
            BODIES,
            d,
            { json: svcTp?.cpuPerRequest.cpuPerRequestUs, stream: svcTp?.cpuPerStream.cpuPerRequestUs },
            freePort,
            log,
          ),
        ),
      );
      await up.shape(50, 0);
      budgetMs += Date.now() - peersStarted;
    }

    log('time to first byte at low load');
    await up.shape(50, 0);
    data.ttfb = await attempt('ttfb', () => ttfbPhase([direct, ...targets], BODIES.stream, quick ? 150 : 500, 90_000));

    const svcMem = targets.find((t) => t.name === 'svc:memory+pglite');
    if (short) {
      data.notes.push('--short: throughput and TTFB only');
      return finish(data);
    }
    log('images: validating the largest accepted upload in isolation');
    const imageDir = mkdtempSync(join(tmpdir(), 'svc-bench-images-'));
    const upload = await imageInput('upload-25mb');
    data.imageValidation = await attempt('image validation', async () => validateInChild('upload-25mb', upload, imageDir));
    rmSync(imageDir, { recursive: true, force: true });
    for (const t of targets) {
      log(`images on ${t.name}: generations, edits with the largest accepted upload`);
      const r = await attempt(`images on ${t.name}`, () =>
        withTimeout(`images ${t.name}`, 60_000, imagesPhase(t, upload, d, { edits: quick ? 2 : 3, warm: !quick })),
      );
      if (r) data.images[t.name] = r;
    }

    const warmupS = quick ? 6 : 20;
    /** Time kept back for the soak's warm-up, a fresh svc start and the report. */
    const soakReserveMs = (warmupS + 25 + (quick ? 10 : 40)) * 1000;
    const left = () => budgetMs - (Date.now() - started);
    data.openStreams = await openStreamsRounds({
      targets,
      up,
      body: BODIES.stream,
      with10k,
      spareMs: () => left() - soakReserveMs,
      notes: data.notes,
      attempt,
      log,
    });

    if (svcMem) {
      log('fetch-limit trap: svc started without BUN_CONFIG_MAX_HTTP_REQUESTS in its environment');
      data.fetchLimitTrap = await attempt('fetch-limit trap check', async () => {
        const plain = await startSvc({ port: await freePort(), upstreamUrl, backend: 'memory+pglite', maxHttpRequests: null });
        try {
          const t = svcTarget('svc (env unset)', plain);
          const r = await openStreamsPhase(t, up, BODIES.stream, { count: 600, holdMs: 500, timeoutMs: 8_000 });
          return { streams: 600, opened: r.opened, upstreamPeakOpen: r.upstreamPeakOpen, note: r.note ?? null };
        } finally {
          await plain.close();
        }
      });

      // The soak runs on a fresh svc, so the heap left by the open-stream phases does not mask growth.
      for (const svc of svcs) await svc.close().catch(() => {});
      const soak = Math.max(10, Math.min(soakS, Math.floor((left() - (warmupS + 30) * 1000) / 1000)));
      if (soak < soakS) data.notes.push(`soak shortened from ${soakS} s to ${soak} s to keep the run inside its time budget`);
      log(`soak on a fresh svc (memory+pglite): ${warmupS} s warm-up, ${soak} s soak`);
      await up.shape(50, 0);
      data.soak = await attempt('soak', async () => {
        const fresh = await startSvc({ port: await freePort(), upstreamUrl, backend: 'memory+pglite' });
        try {
          const t = svcTarget('svc soak', fresh);
          return await withTimeout('soak', (soak + warmupS + 60) * 1000, soakPhase(t, BODIES, { warmupS, soakS: soak }));
        } finally {
          await fresh.close();
        }
      });
    }
  } finally {
    for (const b of backings) b.close();
    for (const svc of svcs) await svc.close().catch(() => {});
    await ownRedis?.stop();
    await bare.stop();
    await upstream.stop();
    await jobsUpstream.stop();
  }
  finish(data);
}

/** Prints the table and, unless --short, writes latest.json (and the README table for full runs). */
function finish(data: RunData) {
  const rows = buildRows(data);
  const table = formatTable(rows, data.backends);
  const elapsedS = Math.round((Date.now() - started) / 1000);
  process.stdout.write(`\n${table}\n\n`);
  for (const [b, why] of Object.entries(data.unavailable)) process.stdout.write(`svc ${b}: unavailable (${why})\n`);
  for (const n of data.notes) process.stdout.write(`note: ${n}\n`);
  process.stdout.write(`${data.meta.note}\nTotal run time ${elapsedS} s.\n`);
  if (short) return;
  writeJson('bench/results/latest.json', { ...data, elapsedS, rows });
  if (!quick)
    updateReadme(
      'docs/benchmarks.md',
      `Run of ${data.meta.date.slice(0, 10)} (${data.meta.machine.cores} cores, ${data.meta.machine.cpu}; Bun ${data.meta.versions.bun}, Elysia ${data.meta.versions.elysia}, ${data.meta.versions.loadTool}). ${data.meta.note}\n\n${markdownTable(rows, data.backends)}`,
    );
}

try {
  await main();
} catch (error) {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? error}\n`);
  process.exitCode = 1;
} finally {
  killAll();
}
