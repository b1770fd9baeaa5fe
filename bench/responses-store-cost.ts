/**
 * `bun bench/responses-store-cost.ts [--rows 5000] [--batch 200] [--rounds 3]`: what storing a
 * `/responses` answer costs on the embedded database (PGlite in a temp data dir, as svc runs it):
 * this process's CPU µs per stored response, `save`d then written by `flush` in batches of
 * `--batch` (about what the 100 ms flush period gathers at the bench's rate). A row is the bench's
 * 50-chunk answer (a reasoning item and a message) with its one input item. `--insert` hides the
 * embedded client from the store, so it writes by its INSERT instead of COPY (the before of that
 * change). Prints each round and the median.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccount } from '../src/auth/bootstrap';
import { openPglite } from '../src/db/open';
import { createLogger } from '../src/log';
import { storedInputItems } from '../src/responses/conversation';
import { responseShell, type ResponseObject } from '../src/responses/response';
import { createResponseStore } from '../src/responses/store';
import { ResponsesStreamEncoder } from '../src/responses/stream-encoder';
import type { ChatChunk } from '../src/stream/wire';
import { ownCpuMicros } from './lib/ledger-charge';
import { contentFrames, USAGE } from './servers/upstream-bytes';

const argv = Bun.argv.slice(2);
const opt = (name: string, dflt: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1]! : dflt);
const rows = Number(opt('--rows', '5000'));
const batch = Number(opt('--batch', '200'));
const rounds = Number(opt('--rounds', '3'));

const dir = mkdtempSync(join(tmpdir(), 'svc-responses-store-cost-'));
const storage = await openPglite({ dataDir: dir });
const accountId = await createAccount(storage.db, {});
// --insert: the drizzle database without its PGlite client in sight (pgliteOf finds none).
const db = argv.includes('--insert')
  ? (new Proxy(storage.db, { get: (target, key) => (key === '$client' ? undefined : Reflect.get(target, key)) }) as typeof storage.db)
  : storage.db;
const store = createResponseStore(db, {
  log: createLogger('error'),
  now: Date.now,
  flushIntervalMs: 3_600_000,
  sweepIntervalMs: 3_600_000,
});

const decoder = new TextDecoder();
const CHUNKS = contentFrames(50).map((f) => JSON.parse(decoder.decode(f).slice('data: '.length)) as ChatChunk);
/** The bench's answer as the stream encoder completes it. */
function answer(id: string): ResponseObject {
  const shell = responseShell(
    { model: 'bench', input: 'Say hello.', max_output_tokens: 64, stream: true } as never,
    id,
    'bench',
    1_800_000_000,
  );
  let final: ResponseObject | null = null;
  const encoder = new ResponsesStreamEncoder(
    shell,
    id,
    () => undefined,
    (r) => (final = r),
  );
  for (const chunk of CHUNKS) encoder.chunk(chunk);
  encoder.end({ ...CHUNKS[0]!, choices: [], usage: USAGE, cost: { total_usd: '0.000062' } } as ChatChunk);
  return final!;
}

const figures: number[] = [];
for (let round = 0; round < rounds; round++) {
  const at = Date.now();
  const made = Array.from({ length: rows }, (_, i) => answer(`resp_${at}_${round}_${i}`));
  const before = ownCpuMicros();
  for (let i = 0; i < rows; i++) {
    const response = made[i]!;
    store.save({
      id: response.id,
      accountId,
      previousResponseId: null,
      rootId: response.id,
      status: response.status,
      input: storedInputItems('Say hello.', response.id),
      response,
      createdAt: at,
      expiresAt: at + 30 * 86_400_000,
    });
    if ((i + 1) % batch === 0) await store.flush();
  }
  await store.flush();
  const perRow = (ownCpuMicros() - before) / rows;
  figures.push(perRow);
  console.log(`round ${round + 1}: ${perRow.toFixed(1)} µs CPU/row`);
}
figures.sort((a, b) => a - b);
console.log(
  `stored responses on PGlite by ${argv.includes('--insert') ? 'INSERT' : 'COPY'}, batches of ${batch}: median ${figures[Math.floor(figures.length / 2)]!.toFixed(1)} µs CPU/row`,
);
await store.close();
await storage.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
