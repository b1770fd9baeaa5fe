/**
 * A preload (`bun --preload bench/lib/pglite-statements.ts src/index.ts`) that counts the
 * statements svc sends to PGlite, by their text, and writes the counts as JSON to
 * `$SVC_STATEMENTS_FILE` whenever the process gets SIGUSR2: a window's statements are the
 * difference of two dumps (bench/jobs-cost.ts --statements). Bench only: it wraps PGlite's
 * `query`, `exec` and `transaction`.
 */
import { PGlite } from '@electric-sql/pglite';
import { writeFileSync } from 'node:fs';

const counts = new Map<string, number>();
const count = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
type Method = (this: PGlite, ...args: unknown[]) => unknown;
const proto = PGlite.prototype as unknown as Record<string, Method>;

for (const name of ['query', 'exec', 'transaction']) {
  const original = proto[name]!;
  proto[name] = function counted(this: PGlite, ...args: unknown[]) {
    count(typeof args[0] === 'string' ? `${name}: ${args[0].replace(/\s+/g, ' ').slice(0, 120)}` : name);
    return original.apply(this, args);
  };
}

process.on('SIGUSR2', function dumpStatements() {
  writeFileSync(process.env.SVC_STATEMENTS_FILE!, JSON.stringify(Object.fromEntries(counts)));
});
