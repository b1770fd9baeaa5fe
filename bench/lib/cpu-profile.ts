import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

type ProfileNode = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };

/**
 * Prints self and total samples by function over the last `seconds` of the `bun --cpu-prof`
 * profile in `dir`, ending `tailMs` before its end (the measured window: start-up and shutdown excluded).
 */
export function summariseProfile(dir: string, seconds: number, tailMs = 300) {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) return console.log(`no profile written in ${dir}`);
  const prof = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (n: ProfileNode) =>
    `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url ? `${n.callFrame.url.replace(process.cwd() + '/', '')}:${n.callFrame.lineNumber + 1}` : '[native]'}`;
  const times: number[] = [];
  let t = 0;
  for (const d of prof.timeDeltas) times.push((t += d));
  const end = times[times.length - 1]! - tailMs * 1000;
  const start = end - seconds * 1e6;
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let n = 0;
  prof.samples.forEach((id, i) => {
    if (times[i]! < start || times[i]! > end) return;
    let node = byId.get(id);
    if (!node || ['(idle)', '(program)', '(root)'].includes(node.callFrame.functionName)) return;
    n++;
    self.set(label(node), (self.get(label(node)) ?? 0) + 1);
    const seen = new Set<string>();
    for (; node; node = byId.get(parent.get(node.id) ?? -1)) seen.add(label(node));
    for (const l of seen) total.set(l, (total.get(l) ?? 0) + 1);
  });
  for (const [title, m] of [
    ['self', self],
    ['total', total],
  ] as const) {
    console.log(`\n${title} (of ${n} busy samples)`);
    for (const [name, c] of [...m].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.PROFILE_TOP ?? 40)))
      console.log(`${((c / n) * 100).toFixed(1).padStart(6)}%  ${name}`);
  }
}
