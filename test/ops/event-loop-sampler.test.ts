import { expect, test } from 'bun:test';
import { delaySamples, sampleEventLoopDelay } from '../../src/metrics/event-loop';

test('a tick records its lateness, the ticks a stall swallowed, and a zero per other interval it covered', () => {
  expect(delaySamples(0.2, 20)).toEqual([0.2]);
  expect(delaySamples(65, 20)).toEqual([65, 45, 25, 5]);
  expect(delaySamples(0.3, 20, 10)).toEqual([0.3, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  expect(delaySamples(65, 20, 3)).toEqual([65, 45, 25, 5, 0, 0]);
});

/** Runs the sampler for `ms` with a CPU reading that grows by `cpuShare` of the wall time; returns the ticks and the samples. */
async function run(cpuShare: number, ms: number) {
  const started = performance.now();
  const cpuUs = () => (performance.now() - started) * 1000 * cpuShare;
  let ticks = 0;
  let samples = 0;
  let lastCall = -Infinity;
  const stop = sampleEventLoopDelay(
    () => {
      // The samples of one tick are recorded back to back; a tick is a call a few ms after the last.
      if (performance.now() - lastCall > 5) ticks++;
      lastCall = performance.now();
      samples++;
    },
    { intervalMs: 20, quietIntervalMs: 200, quietCpuShare: 0.05, cpuUs },
  );
  await Bun.sleep(ms);
  stop();
  return { ticks, samples };
}

test('a busy process is sampled every 20 ms, a quiet one every 200 ms with the same count of samples', async () => {
  const [busy, quiet] = await Promise.all([run(0.5, 1000), run(0, 1000)]);
  expect(busy.ticks).toBeGreaterThanOrEqual(25);
  // The first tick runs at 20 ms and finds the process quiet; then one every 200 ms.
  expect(quiet.ticks).toBeLessThanOrEqual(7);
  // One sample per 20 ms of wall time at either rate (the quiet one counts up to its last tick).
  expect(quiet.samples).toBeGreaterThanOrEqual(35);
  expect(quiet.samples).toBeLessThanOrEqual(busy.samples + 5);
});

test('the sampler keeps no process alive and stops', async () => {
  let samples = 0;
  const stop = sampleEventLoopDelay(() => samples++, { intervalMs: 5, quietIntervalMs: 5 });
  await Bun.sleep(50);
  stop();
  const seen = samples;
  await Bun.sleep(30);
  expect(seen).toBeGreaterThan(0);
  expect(samples).toBe(seen);
});
