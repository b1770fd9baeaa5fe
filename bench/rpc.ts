/**
 * `bun bench/rpc.ts`: CPU per crypto RPC request through svc (`app.handle` on
 * POST /crypto/rpc/{network}: auth, limits, meter, method policy, the node call, the relay
 * check, settlement) against a bare proxy in the same process that relays the same body to
 * the same node and its answer back (one Elysia route, nothing else). The node is a fake
 * `fetch` answering from precomputed bytes, so only the proxies' CPU is measured; a single
 * call and a batch of 100 (eth_getBalance and eth_call answers in the request's order).
 *
 * Flags: --requests N (default 5000), --concurrency N (16), --reversed (the node answers
 * batches in reverse order, so svc rejoins them).
 */
import { Elysia } from 'elysia';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/app';
import { bootstrapAdminKey } from '../src/auth/bootstrap';
import { closeDeps, createDeps } from '../src/boot';
import { parseConfig } from '../src/config';
import { openPglite } from '../src/db/open';
import { createMemoryStore } from '../src/kv/memory';
import { answerOf, callOf } from './lib/rpc-calls';

const argv = Bun.argv.slice(2);
const num = (name: string, dflt: number) => (argv.includes(name) ? Number(argv[argv.indexOf(name) + 1]) : dflt);
const requests = num('--requests', 5000);
const concurrency = num('--concurrency', 16);
const reversed = argv.includes('--reversed');
const NODE = 'http://node.invalid/';

const SINGLE = JSON.stringify(callOf(1));
const SINGLE_ANSWER = JSON.stringify(answerOf(1));
const BATCH = JSON.stringify(Array.from({ length: 100 }, (_, i) => callOf(i)));
const batchAnswers = Array.from({ length: 100 }, (_, i) => answerOf(i));
const BATCH_ANSWER = JSON.stringify(reversed ? batchAnswers.reverse() : batchAnswers);

/** The node: the precomputed answer to a single call or to the batch, with its length declared as real nodes do. */
const nodeFetch = (async (_url: string, init?: RequestInit) => {
  const body = String(init?.body ?? '').startsWith('[') ? BATCH_ANSWER : SINGLE_ANSWER;
  return new Response(body, { headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } });
}) as unknown as typeof fetch;

/** The floor: relays the body to the node and the answer back. */
const bare = new Elysia().post(
  '/rpc',
  async function relay({ request }) {
    const res = await nodeFetch(NODE, { method: 'POST', headers: { 'content-type': 'application/json' }, body: await request.text() });
    return new Response(await res.text(), { headers: { 'content-type': 'application/json' } });
  },
  { parse: 'none' },
);

async function settleCpu() {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const c0 = process.cpuUsage();
    await Bun.sleep(500);
    const c = process.cpuUsage(c0);
    if (c.user + c.system < 25_000) return;
  }
}

async function main() {
  const config = parseConfig({
    logLevel: 'warn',
    accessLog: false,
    bootstrapCreditUsd: '1000000000',
    abuseGuard: { enabled: false },
    rpc: { requestsPerMinute: 1_000_000_000, dailyCreditCap: 0, networks: [{ id: 'bench-mainnet', family: 'evm', urls: [NODE] }] },
  });
  const storage = await openPglite({ dataDir: mkdtempSync(join(tmpdir(), 'svc-rpc-bench-')) });
  const deps = await createDeps(config, { storage, kv: createMemoryStore({}), fetch: nodeFetch });
  const key = (await bootstrapAdminKey(storage.db, config.bootstrapCreditUsd))!;
  const svc = createApp(deps);
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const targets = {
    bare: (body: string) => bare.handle(new Request('http://localhost/rpc', { method: 'POST', headers, body })),
    svc: (body: string) =>
      svc.handle(new Request(`http://localhost${config.basePath}/crypto/rpc/bench-mainnet`, { method: 'POST', headers, body })),
  };

  async function run(target: keyof typeof targets, body: string, n: number) {
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next++ < n) {
          const res = await targets[target](body);
          if (res.status !== 200) throw new Error(`${target}: HTTP ${res.status}: ${await res.text()}`);
          await res.arrayBuffer();
        }
      }),
    );
  }

  async function measure(target: keyof typeof targets, body: string): Promise<number> {
    await run(target, body, Math.min(2000, requests));
    await deps.meter.flush();
    await settleCpu();
    Bun.gc(true);
    const cpu0 = process.cpuUsage();
    await run(target, body, requests);
    await deps.meter.flush();
    const cpu = process.cpuUsage(cpu0);
    return (cpu.user + cpu.system) / requests;
  }

  for (const [name, body] of [
    ['single call', SINGLE],
    [`batch of 100${reversed ? ' (answered in reverse)' : ''}`, BATCH],
  ] as const) {
    const floor = await measure('bare', body);
    const ours = await measure('svc', body);
    process.stdout.write(
      `${name}: svc ${ours.toFixed(1)} us CPU per request, bare proxy ${floor.toFixed(1)} us, svc / bare ${(ours / floor).toFixed(2)} ` +
        `(${requests} requests at ${concurrency} concurrent)\n`,
    );
  }
  await closeDeps(deps);
  process.exit(0);
}

await main();
