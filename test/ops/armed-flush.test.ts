import { expect, test } from 'bun:test';
import { armedFlush } from '../../src/lifecycle/armed-flush';

test('a flush runs one period after the first item, once for many items, and not at all with none', async () => {
  let flushes = 0;
  let queued = 0;
  const timer = armedFlush(
    20,
    async () => {
      flushes++;
      queued = 0;
    },
    () => queued > 0,
  );
  await Bun.sleep(60);
  expect(flushes).toBe(0);
  for (let i = 0; i < 5; i++) {
    queued++;
    timer.arm();
  }
  await Bun.sleep(60);
  expect(flushes).toBe(1);
  expect(queued).toBe(0);
  await Bun.sleep(60);
  expect(flushes).toBe(1);
  timer.stop();
});

test('a flush that leaves rows queued (a failed batch) re-arms the timer; a stopped one does not run', async () => {
  let attempts = 0;
  let queued = 1;
  const timer = armedFlush(
    10,
    async () => {
      // Fails twice (the rows stay queued), then writes them.
      if (++attempts < 3) throw new Error('database down');
      queued = 0;
    },
    () => queued > 0,
  );
  timer.arm();
  const deadline = performance.now() + 2000;
  while (queued > 0 && performance.now() < deadline) await Bun.sleep(10);
  expect(attempts).toBe(3);
  expect(queued).toBe(0);

  queued = 1;
  timer.arm();
  timer.stop();
  await Bun.sleep(40);
  expect(attempts).toBe(3);
  timer.arm();
  await Bun.sleep(40);
  expect(attempts).toBe(3);
});
