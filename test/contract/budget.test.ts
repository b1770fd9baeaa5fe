import { describe, expect, test } from 'bun:test';
import type { BadCase, BadKind } from '../../contract/lib/bad-input';
import { capacity, nextSlot } from '../../contract/lib/pacer';
import { sampleCases } from '../../contract/lib/sample';
import { createMemoryStore } from '../../src/kv/memory';
import { createAbuseGuard, parseAbuseGuardConfig } from '../../src/limits/abuse-guard';

// The contract suite's failure budget: the pacer's schedule fed to svc's own abuse guard (spec 7
// defaults) never blocks, whatever the alignment of the guard's buckets; the sample of bad-input
// cases is deterministic, covers every operation and spreads the kinds.

/** Failure times (s) the pacer allows from `from` to `to`: from -90, the last 120 s are a run right after another. */
function schedule(from: number, to: number): number[] {
  const times: number[] = [];
  for (let t = from; (t = nextSlot(times, t, 30, 18)) <= to;) times.push(t);
  return times;
}

/** Whether svc's guard (a fresh one, with its clock at `offset` s past a bucket edge) blocks at any of `times`. */
async function blocks(times: number[], offset: number, maxFailures = 20): Promise<boolean> {
  const start = 1_700_000_010_000 - (1_700_000_010_000 % 30_000) + offset * 1000;
  let now = start;
  const clock = () => now;
  const guard = createAbuseGuard({ kv: createMemoryStore({ now: clock }), now: clock, config: parseAbuseGuardConfig({ maxFailures }) });
  try {
    for (const t of times) {
      now = start + Math.round(t * 1000);
      if (await guard.countFailure('a:contract')) return true;
    }
    return false;
  } finally {
    await guard.close();
  }
}

describe('the pacer keeps the deliberate failures under the abuse guard', () => {
  test('two minutes of paced failures never block, at any bucket alignment, from a clean start or right after another run', async () => {
    const cold = schedule(0, 120);
    const warm = schedule(-90, 120);
    expect(cold.length).toBeGreaterThan(60);
    expect(warm.filter((t) => t >= 0).length).toBeGreaterThan(60);
    for (let offset = 0; offset < 30; offset += 0.7) {
      expect(`cold, offset ${offset}: ${await blocks(cold, offset)}`).toBe(`cold, offset ${offset}: false`);
      expect(`warm, offset ${offset}: ${await blocks(warm, offset)}`).toBe(`warm, offset ${offset}: false`);
    }
  });

  test('the guard would block the same failures sent unpaced, and a pacer that ignores the worst alignment', async () => {
    expect(
      await blocks(
        Array.from({ length: 25 }, (_, i) => i * 0.1),
        0,
      ),
    ).toBe(true);
    // 19 at once, then one every 1.5 s: within 20 per 30 s of a true sliding window, but the guard's two-bucket estimate blocks.
    const naive = [...Array.from({ length: 19 }, () => 0), ...Array.from({ length: 40 }, (_, i) => 30 + i * 1.5)];
    let blocked = false;
    for (let offset = 0; offset < 30 && !blocked; offset += 0.7) blocked = await blocks(naive, offset);
    expect(blocked).toBe(true);
  });

  test('capacity: a run after another gets the steady pace (18 per 30 s); --max-seconds scales it', () => {
    expect(capacity(60, { warm: true, window: 30, limit: 18 })).toBe(36);
    expect(capacity(30, { warm: true, window: 30, limit: 18 })).toBeLessThan(capacity(90, { warm: true, window: 30, limit: 18 }));
  });
});

const KINDS: BadKind[] = ['missing', 'wrong type', 'enumeration', 'range', 'length'];

/** Operations with `sizes[i]` cases each, kinds rotating. */
function operations(sizes: number[]): Map<string, BadCase[]> {
  return new Map(
    sizes.map((n, i) => [
      `op${i}`,
      Array.from({ length: n }, (_, j) => ({ field: `f${j}`, what: `case ${j}`, kind: KINDS[(i + j) % KINDS.length]!, body: {} })),
    ]),
  );
}

const count = (m: Map<string, BadCase[]>) => [...m.values()].reduce((n, c) => n + c.length, 0);
const names = (m: Map<string, BadCase[]>) => [...m].flatMap(([label, cases]) => cases.map((c) => `${label} ${c.field}`));

describe('the sample of bad-input cases', () => {
  const all = operations([30, 2, 12, 1, 25, 8, 40, 3]);

  test('n cases, every operation at least once, each operation with distinct kinds before any repeats', () => {
    const chosen = sampleCases(all, 20, 7);
    expect(count(chosen)).toBe(20);
    for (const [label, cases] of chosen) {
      expect(`${label}: ${cases.length > 0}`).toBe(`${label}: true`);
      const kinds = cases.map((c) => c.kind);
      const available = new Set(all.get(label)!.map((c) => c.kind)).size;
      expect(new Set(kinds).size).toBe(Math.min(kinds.length, available));
    }
    // Kinds spread across the sample: each appears.
    expect(new Set([...chosen.values()].flat().map((c) => c.kind)).size).toBe(KINDS.length);
  });

  test('fewer than the operations: still one each; more than there are: all of them', () => {
    expect(count(sampleCases(all, 3, 1))).toBe(all.size);
    expect(count(sampleCases(all, 1000, 1))).toBe(count(all));
  });

  test('the same seed gives the same sample, another seed another one', () => {
    expect(names(sampleCases(all, 25, 42))).toEqual(names(sampleCases(all, 25, 42)));
    expect(names(sampleCases(all, 25, 42))).not.toEqual(names(sampleCases(all, 25, 43)));
  });
});
