import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What the lock file in the data directory says about the server that holds it. */
export interface DataLock {
  pid: number;
  /** Where its API listens (written once it listens), so the operator CLI can go through it. */
  url: string | null;
  startedAt: string;
}

const LOCK_FILE = 'svc.lock.json';

/** Thrown when another live process holds the embedded database. */
export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
  constructor(
    readonly dataDir: string,
    readonly holder: DataLock,
  ) {
    super(`the embedded database in ${dataDir} is held by a running svc (pid ${holder.pid}${holder.url ? `, ${holder.url}` : ''})`);
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user; it still holds the files.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The live process holding `dataDir`, or null (no lock, or a stale one left by a crash). */
export function dataDirHolder(dataDir: string): DataLock | null {
  const path = join(dataDir, LOCK_FILE);
  if (!existsSync(path)) return null;
  try {
    const lock = JSON.parse(readFileSync(path, 'utf8')) as DataLock;
    return Number.isInteger(lock.pid) && lock.pid !== process.pid && alive(lock.pid) ? lock : null;
  } catch {
    return null;
  }
}

/**
 * Takes the embedded database's directory for this process: PGlite is one process's files,
 * and a second writer (another server, or the CLI) would write into a copy the first never
 * reads, or corrupt it. Throws DataDirLockedError when a live process holds it.
 */
export function lockDataDir(dataDir: string) {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  const lock: DataLock = { pid: process.pid, url: null, startedAt: new Date().toISOString() };
  // Created exclusively, so of two processes starting at once only one gets it; a lock whose
  // process is gone (a crash, a kill -9) is removed and taken once.
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(path, JSON.stringify(lock), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = dataDirHolder(dataDir);
      if (holder) throw new DataDirLockedError(dataDir, holder);
      if (attempt > 0) throw new DataDirLockedError(dataDir, { pid: 0, url: null, startedAt: '' });
      rmSync(path, { force: true });
    }
  }
  return {
    /** Records where the API listens. */
    listening(url: string) {
      writeFileSync(path, JSON.stringify({ ...lock, url }));
    },
    release() {
      if (dataDirHolder(dataDir) === null) rmSync(path, { force: true });
    },
  };
}
