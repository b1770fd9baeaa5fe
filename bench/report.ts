import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** One printed line: a metric for the bare proxy and each svc backend, with ratios and a verdict. */
export interface MetricRow {
  id: string;
  label: string;
  unit: string;
  bare: number | null;
  /** Per svc backend; null when unavailable. */
  svc: Record<string, number | null>;
  /** svc / bare per backend (null when either side is missing or a ratio makes no sense). */
  ratio: Record<string, number | null>;
  /** The target in words, e.g. "ratio <= 1.5". */
  target: string;
  /** Whether each backend meets the target; null when unmeasured or no target. */
  pass: Record<string, boolean | null>;
}

const fmt = (x: number | null | undefined) =>
  x == null || !Number.isFinite(x) ? 'n/a' : Math.abs(x) >= 100 ? String(Math.round(x)) : String(Math.round(x * 100) / 100);
const verdict = (p: boolean | null | undefined) => (p == null ? '' : p ? 'ok' : 'MISS');

/** The results table as aligned text, one column group per svc backend. */
export function formatTable(rows: MetricRow[], backends: string[]): string {
  const header = ['metric', 'bare', ...backends.flatMap((b) => [`svc ${b}`, 'ratio', '']), 'target'];
  const lines = rows.map((r) => [
    `${r.label} (${r.unit})`,
    fmt(r.bare),
    ...backends.flatMap((b) => [fmt(r.svc[b]), r.ratio[b] == null ? '' : `${fmt(r.ratio[b])}x`, verdict(r.pass[b])]),
    r.target,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const render = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [render(header), ...lines.map(render)].join('\n');
}

/** The same table in Markdown, for docs/benchmarks.md. */
export function markdownTable(rows: MetricRow[], backends: string[]): string {
  const header = ['metric', 'bare proxy', ...backends.flatMap((b) => [`svc ${b}`, 'ratio']), 'target'];
  const out = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const r of rows)
    out.push(
      `| ${[
        `${r.label} (${r.unit})`,
        fmt(r.bare),
        ...backends.flatMap((b) => [
          `${fmt(r.svc[b])}${r.pass[b] == null ? '' : r.pass[b] ? ' ✅' : ' ❌'}`,
          r.ratio[b] == null ? '' : `${fmt(r.ratio[b])}x`,
        ]),
        r.target,
      ].join(' | ')} |`,
    );
  return out.join('\n');
}

/** Writes the JSON results, creating the folder. */
export function writeJson(path: string, data: unknown) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(data, null, 2)}\n`);
}

const START = '<!-- bench:results:start -->';
const END = '<!-- bench:results:end -->';

/** Replaces the generated block of docs/benchmarks.md (between the markers) with `text`. */
export function updateReadme(path: string, text: string) {
  if (!existsSync(path)) return;
  const readme = readFileSync(path, 'utf8');
  const a = readme.indexOf(START);
  const b = readme.indexOf(END);
  if (a < 0 || b < a) return;
  writeFileSync(path, `${readme.slice(0, a + START.length)}\n${text}\n${readme.slice(b)}`);
}
