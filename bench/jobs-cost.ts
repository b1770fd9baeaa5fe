/**
 * `bun bench/jobs-cost.ts [--backend redis+postgres] [--seconds 10] [--warm 12] [--cwd DIR[,DIR...]] [--runs N] [--profile] [--statements]`:
 * the families phase's media jobs alone (bench/load/jobs-client.ts: 32 jobs in flight, each
 * polled every 100 ms until its 4 KB of media is read) against svc, with svc's CPU per job
 * split by thread; on redis+postgres also the Redis server's and svc's Postgres backends' CPU
 * per job and `pg_stat_database`'s transactions and rows per job. --cwd runs svc from each
 * checkout in turn, --runs times (a before/after, interleaved); --profile runs svc under
 * `bun --cpu-prof` and sums the measured window's samples by function (bench/lib/cpu-profile.ts);
 * --statements (embedded) counts the window's PGlite statements per job, by text (bench/lib/pglite-statements.ts).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { backingServices } from './lib/backing-cpu';
import { summariseProfile } from './lib/cpu-profile';
import { killAll, startChild, threadCpu } from './lib/proc';
import { svcTarget } from './lib/route-targets';
import { measureJobs } from './phases/families';
import { startSvc, svcEnvFromProcess } from './servers/svc';

const argv = Bun.argv.slice(2);
const opt = (name: string, dflt: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1]! : dflt);
const seconds = Number(opt('--seconds', '10'));
// Seconds of jobs before the window, as the families phase warms them: compilation lands in a window after a short one.
const warmS = Number(opt('--warm', '12'));
const backend = opt('--backend', 'memory+pglite') as 'memory+pglite' | 'redis+postgres';
const cwds = opt('--cwd', process.cwd()).split(',');
const runs = Number(opt('--runs', '1'));
const profile = argv.includes('--profile');
const statements = argv.includes('--statements');

/** The PGlite statements svc has run so far, by text (its preload writes them on SIGUSR2). */
async function statementCounts(pid: number, file: string): Promise<Record<string, number>> {
  process.kill(pid, 'SIGUSR2');
  await Bun.sleep(300);
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, number>;
}

/** The database's counters that say how much SQL a window ran (stats reach the view within a second). */
async function pgCounters(databaseUrl: string) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql`select xact_commit::float8 as commits, tup_returned::float8 as returned, tup_fetched::float8 as fetched,
      (tup_inserted + tup_updated + tup_deleted)::float8 as written from pg_stat_database where datname = current_database()`;
    return row as unknown as Record<string, number>;
  } finally {
    await sql.end({ timeout: 2 });
  }
}

async function once(cwd: string) {
  const profileDir = profile ? mkdtempSync(join(tmpdir(), 'svc-prof-')) : null;
  const statementsFile = statements ? join(mkdtempSync(join(tmpdir(), 'svc-sql-')), 'statements.json') : null;
  const svc = await startSvc({
    port: 20000 + Math.floor(Math.random() * 20000),
    upstreamUrl: 'http://127.0.0.1:9/v1', // no chat request is made here
    jobsUrl,
    backend,
    cwd,
    env: { ...svcEnvFromProcess(), ...(statementsFile ? { SVC_STATEMENTS_FILE: statementsFile } : {}) },
    extraArgs: [
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      ...(statementsFile ? ['--preload', join(process.cwd(), 'bench/lib/pglite-statements.ts')] : []),
    ],
  });
  const target = svcTarget(`svc:${backend}`, svc);
  const backing = svc.databaseUrl && process.env.REDIS_URL ? await backingServices(process.env.REDIS_URL, svc.databaseUrl) : null;
  try {
    await measureJobs(target, target.families!, warmS); // warm-up
    await Bun.sleep(1500);
    const threads = threadCpu(svc.child.pid);
    const pgBefore = svc.databaseUrl ? await pgCounters(svc.databaseUrl) : null;
    const backingBefore = await backing?.read();
    const sqlBefore = statementsFile ? await statementCounts(svc.child.pid, statementsFile) : null;
    const r = await measureJobs(target, target.families!, seconds);
    const after = threadCpu(svc.child.pid);
    const sqlAfter = statementsFile ? await statementCounts(svc.child.pid, statementsFile) : null;
    const per = (v: number) => (r.jobs > 0 ? (v / r.jobs).toFixed(1) : '-');
    console.log(
      `\n${cwd} (${backend}): ${r.jobs} jobs, ${r.failures} failures, ${r.requestsPerJob} requests/job, svc ${r.cpuPerJobUs} µs/job`,
    );
    console.log(`  job latency ms: ${JSON.stringify(r.latencyMs)}`);
    if (r.firstError) console.log(`  first error: ${r.firstError}`);
    const rows = [...after].map(([name, cpu]) => [name, cpu - (threads.get(name) ?? 0)] as const).filter(([, v]) => v > 0);
    for (const [name, v] of rows.sort((a, b) => b[1] - a[1])) console.log(`  ${name.padEnd(20)} ${per(v).padStart(8)} µs/job`);
    if (sqlBefore && sqlAfter) {
      const delta = Object.entries(sqlAfter)
        .map(([text, n]) => [text, n - (sqlBefore[text] ?? 0)] as const)
        .filter(([, n]) => n > 0);
      console.log(`  PGlite statements per job: ${per(delta.reduce((sum, [, n]) => sum + n, 0))}`);
      for (const [text, n] of delta.sort((a, b) => b[1] - a[1])) console.log(`  ${per(n).padStart(6)}  ${text}`);
    }
    if (backing && backingBefore && r.jobs > 0) {
      await backing.report(backingBefore, r.jobs);
      await Bun.sleep(1000);
      const pgAfter = await pgCounters(svc.databaseUrl!);
      console.log(
        `  pg_stat_database per job: ${Object.keys(pgAfter)
          .map((k) => `${k} ${per(pgAfter[k]! - pgBefore![k]!)}`)
          .join(', ')}`,
      );
    }
  } finally {
    await backing?.close();
    await svc.close();
  }
  if (profileDir) summariseProfile(profileDir, seconds, 1500);
}

const jobsUpstream = startChild('jobs upstream', [process.execPath, 'bench/servers/upstream-jobs.ts']);
const jobsUrl = `http://127.0.0.1:${(await jobsUpstream.waitFor(/jobs upstream listening on (\d+)/, 10_000))[1]}`;
try {
  for (let i = 0; i < runs; i++) for (const cwd of cwds) await once(cwd);
} finally {
  killAll();
}
process.exit(0);
