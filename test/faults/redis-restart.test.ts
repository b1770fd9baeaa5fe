import { afterAll, beforeAll, expect, test } from 'bun:test';
import { freeRedisPorts, ownRedis, type OwnRedis } from '../helpers/redis-server';
import { startFleet, type Fleet } from './instances';

// A non-persistent Redis (no RDB, no AOF) on its own port, killed and started again under load.
let redis: OwnRedis;
let fleet: Fleet;

beforeAll(async () => {
  redis = ownRedis(freeRedisPorts(1)[0]!);
  await redis.start();
  fleet = await startFleet({ redisUrl: redis.url, n: 2 });
});

afterAll(async () => {
  await fleet?.close();
  await redis?.dispose();
});

test('a non-persistent Redis restarted under load: the ledger equals the sum of the cost the clients saw', async () => {
  // Slow streams, so some are in flight (reserved, not settled) when Redis dies.
  fleet.upstream.set({ chunkDelayMs: 15 });
  const counts = { ok: 0, refused: 0, other: 0, brokenStreams: 0 };
  let running = true;
  async function client(n: number) {
    for (let i = 0; running; i++) {
      const r = await fleet.chat(n % 2, { stream: (n + i) % 2 === 0 });
      if (r.status === 200 && r.error === null) counts.ok++;
      else if (r.status === 503) {
        counts.refused++;
        expect(r.retryAfter).toBe('2');
        await Bun.sleep(50);
      } else if (r.status === 200) counts.brokenStreams++;
      else {
        counts.other++;
        if (counts.other < 4) console.log(r);
      }
    }
  }
  const clients = Array.from({ length: 12 }, (_, n) => client(n));
  await Bun.sleep(1_000);
  const before = counts.ok;
  await redis.stop();
  await Bun.sleep(1_000);
  await redis.start();
  await Bun.sleep(1_500);
  running = false;
  await Promise.all(clients);
  console.log(`redis restart under load: ${JSON.stringify(counts)} (served before the crash: ${before})`);
  expect(counts.other).toBe(0);
  expect(counts.refused).toBeGreaterThan(0);
  expect(counts.ok).toBeGreaterThan(before);
  // Everything a client was shown reached the ledger, once.
  expect(await fleet.ledgerCharged()).toBe(fleet.served);
}, 30_000);

/** The live balance (mirror) of the fleet's account, micro-USD. */
async function liveUsd(): Promise<number> {
  const body = await (await fleet.instances[0]!.handle('/billing/balance')).json();
  return Math.round(body.balances.usd * 1e6);
}

test('a stream that ends while Redis is unreachable is still charged; its settlement reaches Redis when it answers again', async () => {
  fleet.upstream.set({ silenceMs: 800 });
  const before = await liveUsd();
  const charged = await fleet.ledgerCharged();
  // The stream reserves, then the upstream is silent; Redis stops answering meanwhile.
  const stream = fleet.chat(0, { stream: true });
  await Bun.sleep(300);
  redis.pause();
  let outcome;
  try {
    outcome = await stream;
  } finally {
    redis.resume();
  }
  expect(outcome).toMatchObject({ status: 200, error: null });
  expect(outcome.costMicros).toBeGreaterThan(0);
  expect(await fleet.ledgerCharged()).toBe(charged + outcome.costMicros);
  // The replayed settlement catches the mirror up (hold dropped, amount deducted) within the retry period.
  fleet.upstream.set({});
  let live = 0;
  for (let i = 0; i < 40 && live !== before - outcome.costMicros; i++) {
    await Bun.sleep(100);
    live = await liveUsd().catch(() => 0);
  }
  expect(live).toBe(before - outcome.costMicros);
}, 20_000);
