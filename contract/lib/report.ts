import { readFileSync, writeFileSync } from 'node:fs';

/** One operation's line of the report. */
export interface Row {
  operation: string;
  passed: number;
  failed: number;
  /** Why checks of it did not run here. */
  skipped: string[];
}

/**
 * The operation a check is about: the operation id its name starts with (`editImage (multipart):
 * ...`), else its describe block (`auth`, `compression`).
 */
function operationOf(describe: string, name: string): string {
  const id = /^([a-z]+[A-Z]\w*(?: \(multipart\))?)[ :,]/.exec(name)?.[1];
  return id ?? describe;
}

/** Rows per operation from `bun test`'s output lines and the suite's `contract: skipped` notes. */
export function summarize(output: string, notes: string[]): Row[] {
  const rows = new Map<string, Row>();
  const row = (operation: string) => {
    let r = rows.get(operation);
    if (!r) rows.set(operation, (r = { operation, passed: 0, failed: 0, skipped: [] }));
    return r;
  };
  // eslint-disable-next-line no-control-regex
  for (const line of output.replace(/\x1b\[[0-9;]*m/g, '').split('\n')) {
    const m = /^\((pass|fail|skip|todo)\) (.*?)(?: \[[\d.]+m?s\])?$/.exec(line.trim());
    if (!m) continue;
    const parts = m[2]!.split(' > ');
    const r = row(operationOf(parts.length > 1 ? parts[0]! : 'other', parts.at(-1)!));
    if (m[1] === 'pass') r.passed++;
    else if (m[1] === 'fail') r.failed++;
    else r.skipped.push('skipped by bun test');
  }
  for (const line of notes) {
    const m = /^contract: skipped (.*?): (.*)$/.exec(line);
    if (!m) continue;
    const check = m[1]!;
    const r = row(operationOf('', `${check} `) || check);
    r.skipped.push(r.operation === check ? m[2]! : `${check.slice(r.operation.length).trim() || 'all'}: ${m[2]}`);
  }
  return [...rows.values()].sort((a, b) => a.operation.localeCompare(b.operation));
}

/** The rows as a text table: operation, passed, failed, and the skip reasons (each once). */
export function table(rows: Row[]): string {
  const width = Math.max(9, ...rows.map((r) => r.operation.length));
  const lines = [`${'operation'.padEnd(width)}  passed  failed  skipped`];
  for (const r of rows) {
    const reasons = [...new Set(r.skipped)];
    const skipped = reasons.length ? `${r.skipped.length} (${reasons.join('; ')})` : '-';
    lines.push(`${r.operation.padEnd(width)}  ${String(r.passed).padStart(6)}  ${String(r.failed).padStart(6)}  ${skipped}`);
  }
  const total = (k: 'passed' | 'failed') => rows.reduce((n, r) => n + r[k], 0);
  lines.push(`${'total'.padEnd(width)}  ${String(total('passed')).padStart(6)}  ${String(total('failed')).padStart(6)}`);
  return lines.join('\n');
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * Adds the checks the suite skipped (with their reasons) and its other notes (how much bad input
 * ran) to `bun test`'s JUnit report, which only knows them as passed tests that returned early.
 */
export function addSkipsToJunit(file: string, notes: string[]): void {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return;
  }
  const cases = notes
    .map((line) => /^contract: skipped (.*?): (.*)$/.exec(line))
    .filter((m) => m !== null)
    .map((m) => `    <testcase name="${xml(m[1]!)}" classname="contract skipped"><skipped message="${xml(m[2]!)}"/></testcase>`);
  const others = notes.filter((l) => !l.startsWith('contract: skipped ')).map((l) => `    <property name="note" value="${xml(l)}"/>`);
  const suite =
    `  <testsuite name="contract: not run here" tests="${cases.length}" skipped="${cases.length}" failures="0">\n` +
    `    <properties>\n  ${others.join('\n  ')}\n    </properties>\n${cases.join('\n')}\n  </testsuite>\n`;
  writeFileSync(file, text.includes('</testsuites>') ? text.replace(/<\/testsuites>\s*$/, `${suite}</testsuites>\n`) : text + suite);
}
