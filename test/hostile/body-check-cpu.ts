// Run by body-check.test.ts in a process of its own: the CPU it reads is then this
// measurement's alone, not that of timers, servers and garbage the suite's earlier files left in
// the shared test process (on CI, after some 240 files, two cases read over 25 ms there; alone,
// 1 to 3.5 ms).
import { startTestApp } from '../helpers/app';

const TRIES = 5;
const MODEL = 'llama-3.3-70b';
const wide = (element: string, count = 99_990) => `[${Array(count).fill(element).join(',')}]`;

export const CASES: [string, string, (items: string) => string][] = [
  ['chat messages of strings', '"x"', (items) => `{"model":"${MODEL}","messages":${items}}`],
  ['chat messages of numbers', '1', (items) => `{"model":"${MODEL}","messages":${items}}`],
  ['chat messages without a role', '{"content":"x"}', (items) => `{"model":"${MODEL}","messages":${items}}`],
  ['chat content parts without a type', '{"text":"x"}', (items) => `{"model":"${MODEL}","messages":[{"role":"user","content":${items}}]}`],
  ['/responses input of strings', '"x"', (items) => `{"model":"${MODEL}","input":${items}}`],
  ['/responses input of items without a role', '{"a":1}', (items) => `{"model":"${MODEL}","input":${items}}`],
];

/**
 * What one case measured: the least process CPU of five answers to the wide body, the least of
 * five `JSON.parse` of the same body (the floor any answer pays: it depends on the machine,
 * 1-3.5 ms on an Intel Xeon, 7-30 ms on an AMD EPYC for 100,000 elements), and the answers.
 */
export interface CaseReading {
  cpuMs: number;
  parseMs: number;
  wide: { status: number; body: unknown };
  short: { status: number; body: unknown };
}

/** The least process CPU, in ms, of `TRIES` runs of `work`, each after a full collection. */
function leastCpuMs(work: () => unknown): number {
  let least = Infinity;
  for (let i = 0; i < TRIES; i++) {
    Bun.gc(true);
    const before = process.cpuUsage();
    work();
    const used = process.cpuUsage(before);
    least = Math.min(least, (used.user + used.system) / 1000);
  }
  return least;
}

async function main() {
  const t = await startTestApp({ config: { maxBodyBytes: 4 * 1024 * 1024 } });
  const post = async (path: string, body: string) => {
    const res = await t.request(path, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    return { status: res.status, body: await res.json() };
  };
  const readings: Record<string, CaseReading> = {};
  for (const [name, element, bodyOf] of CASES) {
    const path = name.startsWith('/responses') ? '/responses' : '/chat/completions';
    const short = await post(path, bodyOf(wide(element, 20)));
    const text = bodyOf(wide(element));
    let least = Infinity;
    let answer = short;
    for (let i = 0; i < TRIES; i++) {
      Bun.gc(true); // the previous wide body's garbage is not this answer's
      const before = process.cpuUsage();
      answer = await post(path, text);
      const used = process.cpuUsage(before);
      least = Math.min(least, (used.user + used.system) / 1000);
    }
    readings[name] = { cpuMs: least, parseMs: leastCpuMs(() => JSON.parse(text)), wide: answer, short };
  }
  await t.close();
  process.stdout.write(JSON.stringify(readings));
}

if (import.meta.main) await main();
