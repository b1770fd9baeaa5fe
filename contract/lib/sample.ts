import type { BadCase } from './bad-input';

/**
 * A small seeded generator (mulberry32): the same seed gives the same sample on any machine.
 * The simulator has the same one; the suite imports nothing of svc, so it can be copied out.
 */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(items: T[], next: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * A deterministic sample of `n` cases (at least one per operation) from each operation's
 * cases, keyed by label: rounds over the operations in a seeded order, each round taking from
 * each operation a case of a kind it has not had yet, preferring the kinds the sample has least
 * of, so field kinds spread across operations. Returns every label's chosen cases in their
 * original order.
 */
export function sampleCases(byLabel: Map<string, BadCase[]>, n: number, seed: number): Map<string, BadCase[]> {
  const next = random(seed);
  const left = new Map([...byLabel].map(([label, cases]) => [label, shuffled(cases, next)]));
  const chosen = new Map<string, Set<BadCase>>([...byLabel.keys()].map((label) => [label, new Set()]));
  const tally = new Map<string, number>();
  const labels = shuffled([...byLabel.keys()], next);
  let taken = 0;
  for (let round = 0; ; round++) {
    let tookAny = false;
    for (const label of labels) {
      if (round > 0 && taken >= n) break;
      const pool = left.get(label)!;
      if (pool.length === 0) continue;
      const had = new Set([...chosen.get(label)!].map((c) => c.kind));
      const rank = (c: BadCase) => (had.has(c.kind) ? 1000 : 0) + (tally.get(c.kind) ?? 0);
      const best = pool.reduce((a, b) => (rank(b) < rank(a) ? b : a));
      pool.splice(pool.indexOf(best), 1);
      chosen.get(label)!.add(best);
      tally.set(best.kind, (tally.get(best.kind) ?? 0) + 1);
      taken++;
      tookAny = true;
    }
    if (!tookAny || taken >= n) break;
  }
  return new Map([...byLabel].map(([label, cases]) => [label, cases.filter((c) => chosen.get(label)!.has(c))]));
}
