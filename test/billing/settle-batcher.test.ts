import { expect, test } from 'bun:test';
import { SettleBatcher } from '../../src/billing/settle-batcher';

/** A batcher whose sends wait until the test lets each one finish. */
function held(windowMs: number, max: number) {
  const sent: { key: string; group: number[]; finish: () => void }[] = [];
  const batcher = new SettleBatcher<number>(
    windowMs,
    max,
    (key, group) => new Promise<void>((finish) => sent.push({ key, group, finish })),
  );
  return { batcher, sent };
}

test('settlements of an account wait together; a full group goes at once, the others with the window or a flush', async () => {
  const { batcher, sent } = held(60_000, 3);
  batcher.add('a', 1);
  batcher.add('b', 2);
  batcher.add('a', 3);
  expect(sent).toHaveLength(0);
  batcher.add('a', 4);
  expect(sent.map((s) => [s.key, s.group])).toEqual([['a', [1, 3, 4]]]);
  const flushed = batcher.flush();
  expect(sent.map((s) => [s.key, s.group])).toEqual([
    ['a', [1, 3, 4]],
    ['b', [2]],
  ]);
  for (const s of sent) s.finish();
  await flushed;
  expect(batcher.size).toBe(0);
  batcher.close();
});

test('flush sends what waits and returns once the groups sent before it landed, not those started after', async () => {
  const { batcher, sent } = held(60_000, 2);
  batcher.add('a', 1);
  const flushed = batcher.flush();
  expect(sent.map((s) => s.group)).toEqual([[1]]);
  // Under load new groups keep starting: this one must not hold the flush up.
  batcher.add('b', 2);
  batcher.add('b', 3);
  expect(sent.map((s) => s.group)).toEqual([[1], [2, 3]]);
  sent[0]!.finish();
  await flushed;
  expect(batcher.size).toBe(1);
  sent[1]!.finish();
  await batcher.flush();
  expect(batcher.size).toBe(0);
  batcher.close();
});
