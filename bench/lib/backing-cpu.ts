import { RedisClient } from 'bun';
import { readdirSync, readFileSync } from 'node:fs';
import { cpuMicros } from './proc';

/** CPU (µs) a process has used so far, or 0 once it is gone. */
function processCpu(pid: number): number {
  try {
    return cpuMicros(pid);
  } catch {
    return 0;
  }
}

/** Postgres backends serving `database` (titled `postgres: [<cluster>: ]<user> <database> <client> <state>`). */
function backendsOf(database: string): number[] {
  const pids: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const title = readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (title.startsWith('postgres: ') && title.split(/\s+/).includes(database)) pids.push(Number(p));
    } catch {}
  }
  return pids;
}

/** CPU (µs) the Postgres backends serving `database` have used so far (those alive now). */
export function postgresCpu(database: string): number {
  let total = 0;
  for (const pid of backendsOf(database)) total += processCpu(pid);
  return total;
}

type CommandStats = Map<string, { calls: number; usec: number }>;

function parseCommandStats(info: string): CommandStats {
  const out: CommandStats = new Map();
  for (const m of info.matchAll(/^cmdstat_(\S+):calls=(\d+),usec=(\d+)/gm)) out.set(m[1]!, { calls: Number(m[2]), usec: Number(m[3]) });
  return out;
}

/** A reading of the backing services, taken before and after a measured window. */
interface Reading {
  redisCpu: number;
  pgCpu: Map<number, number>;
  commands: CommandStats;
}

/**
 * CPU per request of the Redis server and of the Postgres backends of svc's own database, and
 * Redis's `INFO commandstats` per request. Redis is found through `INFO server` (its
 * process_id), so it must run on this machine; everything else it serves in the window counts
 * too, so give svc a Redis of its own for a clean figure. Commands run inside a script count
 * both on their own line and in the script's usec.
 */
export async function backingServices(redisUrl: string, databaseUrl: string) {
  const redis = new RedisClient(redisUrl);
  const pid = Number(((await redis.send('INFO', ['server'])) as string).match(/^process_id:(\d+)/m)?.[1]);
  const database = new URL(databaseUrl).pathname.slice(1);

  async function read(): Promise<Reading> {
    const pgCpu = new Map(backendsOf(database).map((p) => [p, processCpu(p)] as const));
    const commands = parseCommandStats((await redis.send('INFO', ['commandstats'])) as string);
    return { redisCpu: processCpu(pid), pgCpu, commands };
  }

  /** Prints the window's figures per request, from a reading taken before it. */
  async function report(before: Reading, requests: number) {
    const after = await read();
    let pg = 0;
    for (const [p, cpu] of after.pgCpu) pg += cpu - (before.pgCpu.get(p) ?? 0);
    const per = (v: number) => (v / requests).toFixed(1);
    console.log(`  redis-server (pid ${pid})  ${per(after.redisCpu - before.redisCpu)}`);
    console.log(`  postgres backends        ${per(pg)}  (${after.pgCpu.size} of database ${database})`);
    const rows: [string, number, number][] = [];
    for (const [name, a] of after.commands) {
      const b = before.commands.get(name) ?? { calls: 0, usec: 0 };
      if (a.calls - b.calls >= requests / 100) rows.push([name, (a.calls - b.calls) / requests, a.usec - b.usec]);
    }
    rows.sort((x, y) => y[1] - x[1]);
    console.log('  redis commands per request (calls, usec per call):');
    for (const [name, calls, usec] of rows)
      console.log(`    ${name.padEnd(18)} ${calls.toFixed(2).padStart(6)}  ${(usec / (calls * requests)).toFixed(2)}`);
  }

  /** CPU µs per request of redis-server and of svc's Postgres backends over a window, from a reading taken before it. */
  async function perRequest(before: Reading, requests: number): Promise<BackingCpu> {
    const after = await read();
    let pg = 0;
    for (const [p, cpu] of after.pgCpu) pg += cpu - (before.pgCpu.get(p) ?? 0);
    let calls = 0;
    for (const [name, a] of after.commands) if (name !== 'info') calls += a.calls - (before.commands.get(name)?.calls ?? 0);
    return {
      redisUs: Math.round(((after.redisCpu - before.redisCpu) / requests) * 10) / 10,
      pgUs: Math.round((pg / requests) * 10) / 10,
      redisCommands: Math.round((calls / requests) * 100) / 100,
    };
  }

  return { read, report, perRequest, close: () => redis.close() };
}

/** The backing services' CPU per request over a bench window (Redis + Postgres only). */
export interface BackingCpu {
  /** redis-server's CPU (user + system, /proc) per request. */
  redisUs: number;
  /** The CPU of the Postgres backends of svc's database per request. */
  pgUs: number;
  /** Redis commands per request, the ones scripts run included (INFO commandstats). */
  redisCommands: number;
}

/** The reader of a svc's backing services, for the throughput phase. */
export type Backing = Awaited<ReturnType<typeof backingServices>>;
