/**
 * The embedded database's first start, in a child process. Creating a PGlite data directory
 * (initdb runs in a second WASM instance, then the migrations) peaks at ~900 MB of
 * ArrayBuffers, and a process that went through that peak keeps ~60 MB of it resident for
 * good, in the allocator's pages: an idle svc measured 213 MB after a first start against
 * 156 MB when it opened the same directory again (PGlite alone, `/proc/self/status` after a
 * full collection). So the first start creates and migrates the directory in a short-lived
 * `bun` child and svc then opens it as on any later start.
 *
 * The child runs `first-start-child.ts`.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** True when `dataDir` holds no PGlite database yet. */
export function needsFirstStart(dataDir: string): boolean {
  return !existsSync(`${dataDir}/PG_VERSION`);
}

/** Creates and migrates the PGlite database in `dataDir` in a child process; throws with its output if it fails. */
export async function createPgliteInChild(dataDir: string): Promise<void> {
  const child = Bun.spawn([process.execPath, fileURLToPath(new URL('./first-start-child.ts', import.meta.url)), dataDir], {
    stdin: 'ignore',
    stdout: 'ignore',
    stderr: 'pipe',
  });
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  if (code !== 0) throw new Error(`creating the embedded database in ${dataDir} failed (exit ${code}): ${stderr.trim()}`);
}
