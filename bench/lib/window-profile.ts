import { profile } from 'bun:jsc';

type Frame = { name: string; sourceURL?: string; line: number };

const label = (f: Frame) =>
  `${f.name || '(anonymous)'} ${f.sourceURL ? `${f.sourceURL.replace(process.cwd() + '/', '')}:${f.line}` : '[native]'}`;

/**
 * Runs `fn` under JavaScriptCore's sampling profiler and prints the functions most often on
 * top of the stack (self) and on the stack at all (total), so a profile covers only the
 * measured window and not the start-up (PGlite's initdb would dominate a whole-process one).
 */
export async function profileWindow(fn: () => Promise<void>, top = Number(process.env.PROFILE_TOP ?? 30)): Promise<void> {
  const result = await profile(fn, 200);
  const traces = result.stackTraces.traces as { frames: Frame[] }[];
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  for (const t of traces) {
    if (t.frames.length === 0) continue;
    const head = label(t.frames[0]!);
    self.set(head, (self.get(head) ?? 0) + 1);
    for (const l of new Set(t.frames.map(label))) total.set(l, (total.get(l) ?? 0) + 1);
  }
  const print = (title: string, m: Map<string, number>) => {
    process.stdout.write(`\n${title} (of ${traces.length} samples)\n`);
    for (const [name, n] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top))
      process.stdout.write(`${((n / traces.length) * 100).toFixed(1).padStart(6)}%  ${name}\n`);
  };
  print('self', self);
  print('total', total);
  // PROFILE_CALLERS=name: who calls the frames whose label starts with `name` (a native like `json` has many callers).
  const callersOf = process.env.PROFILE_CALLERS;
  if (callersOf) {
    const callers = new Map<string, number>();
    for (const t of traces) {
      const i = t.frames.findIndex((f) => label(f).startsWith(callersOf));
      if (i < 0) continue;
      const chain = t.frames
        .slice(i + 1, i + 4)
        .map(label)
        .join(' < ');
      callers.set(chain, (callers.get(chain) ?? 0) + 1);
    }
    print(`callers of ${callersOf}`, callers);
  }
}
