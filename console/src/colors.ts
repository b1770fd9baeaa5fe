import type { Line } from './chart';

/** A colour-blind-safe palette (Okabe-Ito) for series lines. */
export const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9', '#F0E442', '#000000'];
/** The lines summed as "other": grey, never a model's or a key's colour. */
const OTHER = '#999999';

/** FNV-1a: a name's palette slot, the same in every chart and on every load. */
function slotOf(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return (h >>> 0) % PALETTE.length;
}

/**
 * One colour per name for every chart of a page: the slot its hash picks, or the next free
 * one when another name took it. Names are placed in sorted order, so the result depends on
 * the page's set of names only, not on which chart lists them or in what order (charts rank
 * their lines by their own totals). Past eight names, colours repeat by hash.
 */
export function colorsFor(names: Iterable<string>): Map<string, string> {
  const out = new Map<string, string>([['other', OTHER]]);
  const taken = new Set<number>();
  for (const name of [...new Set(names)].filter((n) => n !== 'other').sort()) {
    let slot = slotOf(name);
    if (taken.size < PALETTE.length) while (taken.has(slot)) slot = (slot + 1) % PALETTE.length;
    taken.add(slot);
    out.set(name, PALETTE[slot] as string);
  }
  return out;
}

/** Every chart's lines, each coloured for its label by one assignment over all of them (colorsFor). */
export function painted<K extends string>(charts: Record<K, Line[]>): Record<K, Line[]> {
  const sets = Object.entries(charts) as [K, Line[]][];
  const colors = colorsFor(sets.flatMap(([, lines]) => lines.map((l) => l.label)));
  return Object.fromEntries(sets.map(([k, lines]) => [k, lines.map((l) => ({ ...l, color: colors.get(l.label) }))])) as Record<K, Line[]>;
}
