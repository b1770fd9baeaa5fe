import type { Subprocess } from 'bun';
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every child the runner started; killed in `killAll` (finally and SIGINT). */
const children = new Set<Subprocess>();

/** Clock ticks per second for /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const CLK_TCK = 100;

/** A running child process with its merged output lines kept for diagnostics. */
export interface Child {
  name: string;
  proc: Subprocess<'pipe', 'pipe', 'pipe'>;
  pid: number;
  /** Resolves with the first stdout/stderr line matching `re`, or rejects after `timeoutMs`. */
  waitFor(re: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  /** Last lines of output, for error messages. */
  tail(): string;
  /** The latest output line matching `re`, if any. */
  last(re: RegExp): string | undefined;
  /** Stops the child (SIGTERM, then SIGKILL after 2 s). */
  stop(): Promise<void>;
}

/** Starts a child process; the runner tracks it so nothing outlives the run. */
export function startChild(name: string, cmd: string[], env: Record<string, string | undefined> = {}, cwd?: string): Child {
  // An undefined value removes the variable from the inherited environment.
  const merged = Object.fromEntries(Object.entries({ ...process.env, ...env }).filter((e): e is [string, string] => e[1] !== undefined));
  // Thousands of open streams need thousands of sockets: lift the soft fd limit to the hard one.
  const raised = ['sh', '-c', 'ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$0" "$@"', ...cmd];
  const proc = Bun.spawn(raised, { env: merged, stdin: 'pipe', stdout: 'pipe', stderr: 'pipe', cwd });
  children.add(proc);
  const lines: string[] = [];
  const waiters: { re: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];
  // BENCH_LOG_DIR=<dir> keeps every line of every child in <dir>/<name>.log (GC logs, debug output).
  const logFile = process.env.BENCH_LOG_DIR ? join(process.env.BENCH_LOG_DIR, `${name.replace(/[^\w+.-]/g, '_')}.log`) : null;
  const onLine = (line: string) => {
    if (logFile) appendFileSync(logFile, `${line}\n`);
    lines.push(line);
    if (lines.length > 200) lines.shift();
    for (const w of [...waiters]) {
      const m = line.match(w.re);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  void pump(proc.stdout, onLine);
  void pump(proc.stderr, onLine);
  const child: Child = {
    name,
    proc,
    pid: proc.pid,
    waitFor(re, timeoutMs) {
      const seen = lines.map((l) => l.match(re)).find(Boolean);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const w = { re, resolve };
        waiters.push(w);
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(w), 1);
          reject(new Error(`${name}: no output matching ${re} within ${timeoutMs} ms; last output:\n${child.tail()}`));
        }, timeoutMs);
        void proc.exited.then((code) => {
          clearTimeout(timer);
          if (waiters.includes(w)) reject(new Error(`${name} exited with ${code}; last output:\n${child.tail()}`));
        });
        w.resolve = (m) => {
          clearTimeout(timer);
          resolve(m);
        };
      });
    },
    tail: () => lines.slice(-15).join('\n'),
    last: (re) => lines.findLast((l) => re.test(l)),
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return void children.delete(proc);
      proc.kill('SIGTERM');
      const killer = setTimeout(() => proc.kill('SIGKILL'), 2000);
      await proc.exited;
      clearTimeout(killer);
      children.delete(proc);
    },
  };
  return child;
}

async function pump(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void) {
  const decoder = new TextDecoder();
  let buf = '';
  try {
    for await (const chunk of stream) {
      buf += decoder.decode(chunk, { stream: true });
      let nl = buf.indexOf('\n');
      while (nl >= 0) {
        onLine(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        nl = buf.indexOf('\n');
      }
    }
  } catch {
    // the child went away; its exit is reported elsewhere
  }
  if (buf) onLine(buf);
}

/** Kills every child still running (SIGKILL: used on the way out). */
export function killAll() {
  for (const proc of children) {
    try {
      proc.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  children.clear();
}

/** User+system CPU time in a /proc stat file (a process's, or one thread's under task/), in microseconds. */
export function statCpuMicros(statPath: string): number {
  const stat = readFileSync(statPath, 'utf8');
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1_000_000) / CLK_TCK;
}

/** User+system CPU time of a whole process (all threads), in microseconds. */
export const cpuMicros = (pid: number): number => statCpuMicros(`/proc/${pid}/stat`);

/** Resident set size of a process in bytes (VmRSS). */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = status.match(/^VmRSS:\s+(\d+)\s+kB/m);
  return m ? Number(m[1]) * 1024 : Number.NaN;
}

/** Peak RSS of a process in bytes (VmHWM, the kernel's high-water mark). */
export function peakRssBytes(pid: number): number {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmHWM:\s+(\d+)\s+kB/m);
  return m ? Number(m[1]) * 1024 : Number.NaN;
}

/** Resets the peak-RSS mark of a process we started to its current RSS (`echo 5 > clear_refs`); false when refused. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * RSS once it stops moving (two readings `stepMs` apart within 1 MB, `maxMs` at most): memory
 * freed by a previous phase is returned lazily, and a fresh process is still loading and
 * compiling; a reading taken while it moves would say more of the moment than of the process.
 */
export async function settledRss(pid: number, stepMs = 250, maxMs = 5000): Promise<number> {
  const MB = 1024 * 1024;
  let last = rssBytes(pid);
  for (let waited = 0; waited < maxMs; waited += stepMs) {
    await Bun.sleep(stepMs);
    const now = rssBytes(pid);
    if (Math.abs(now - last) < MB) return now;
    last = now;
  }
  return last;
}

/** Open file descriptors of a process. */
export function openFds(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return Number.NaN;
  }
}

/** Rejects after `ms` with a message naming what timed out. */
export function withTimeout<T>(what: string, ms: number, p: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: timed out after ${ms} ms`)), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/** CPU (µs) of every thread of `pid`, by thread name (threads of the same name summed). */
export function threadCpu(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim().replace(/\d+$/, '#');
      out.set(name, (out.get(name) ?? 0) + statCpuMicros(`/proc/${pid}/task/${tid}/stat`));
    } catch {}
  }
  return out;
}
