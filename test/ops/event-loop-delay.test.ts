import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

/** The cumulative buckets, sum and count of svc_event_loop_delay_seconds in one scrape. */
async function scrape() {
  const text = await (await t.app.handle(new Request('http://localhost/metrics'))).text();
  const buckets = new Map<string, number>();
  let count = Number.NaN;
  let sum = Number.NaN;
  for (const line of text.split('\n')) {
    const bucket = /^svc_event_loop_delay_seconds_bucket\{le="([^"]+)"\} (\S+)$/.exec(line);
    if (bucket) buckets.set(bucket[1]!, Number(bucket[2]));
    if (line.startsWith('svc_event_loop_delay_seconds_count ')) count = Number(line.split(' ')[1]);
    if (line.startsWith('svc_event_loop_delay_seconds_sum ')) sum = Number(line.split(' ')[1]);
  }
  return { text, buckets, count, sum };
}

test('/metrics has the event-loop delay histogram, sampled while the process idles', async () => {
  const before = await scrape();
  expect(before.text).toContain('# TYPE svc_event_loop_delay_seconds histogram');
  await Bun.sleep(250);
  const after = await scrape();
  // A 20 ms timer: a quarter of a second of idling adds samples, each a delay of at least 0.
  expect(after.count - before.count).toBeGreaterThanOrEqual(3);
  expect(after.sum).toBeGreaterThanOrEqual(before.sum);
  expect(after.buckets.get('+Inf')).toBe(after.count);
});

test('a loop blocked for 450 ms shows up above the 50 ms bucket, with the ticks it swallowed', async () => {
  const before = await scrape();
  // 450 ms: more than twice the quiet interval (200 ms), so a tick falls due during the block at either rate.
  const until = performance.now() + 450;
  while (performance.now() < until) {
    // blocks the event loop, as a long synchronous task in a request would
  }
  await Bun.sleep(60);
  const after = await scrape();
  const over50ms = (s: typeof before) => s.count - s.buckets.get('0.05')!;
  // The first tick after the block is 250-450 ms late; the swallowed ones add 20 ms less each.
  expect(over50ms(after) - over50ms(before)).toBeGreaterThanOrEqual(3);
  expect(after.sum - before.sum).toBeGreaterThan(0.3);
});

test('the delay is exported once: no prom-client event-loop lag gauges beside the histogram', async () => {
  const { text } = await scrape();
  expect(text.split('\n').filter((line) => line.startsWith('# TYPE') && /event_?loop/.test(line))).toEqual([
    '# TYPE svc_event_loop_delay_seconds histogram',
  ]);
});
