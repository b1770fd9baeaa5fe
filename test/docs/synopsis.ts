import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from './markdown';

// A `sh synopsis` block shows commands the docs test cannot run (a ten-minute benchmark, a
// Docker build without a Docker daemon): each line is checked against what it names instead.
// `npm run <script>`: the script exists, its flags come after `--` (npm keeps the ones before
// for itself) and the program it runs reads each of them; `npx bun <file>`: the file exists and
// reads its flags; `docker build`: each --build-arg is an ARG of the Dockerfile; `docker compose`:
// the services named are compose.yaml's; `export NAME=...`: runs. Anything else is refused, so nothing passes unchecked.

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const flagsOf = (args: string[]) => args.filter((a) => /^--[a-z]/.test(a)).map((a) => a.split('=')[0]!);

/** A program's source and that of the files it imports directly (a thin entry point hands its flags to a parser beside it). */
function sourceOf(file: string): string {
  const text = read(file);
  const imported = [...text.matchAll(/from '(\.\.?\/[^']+)'/g)]
    .map((m) => join(dirname(file), `${m[1]}.ts`))
    .filter((path) => existsSync(join(ROOT, path)));
  return [text, ...imported.map(read)].join('\n');
}

/** Whether the program reads `flag`: `'--flag'` as the hand-written parsers name it, or parseArgs' `'flag'` / `flag: {`. */
function reads(file: string, flag: string): boolean {
  const source = sourceOf(file);
  const name = flag.slice(2);
  return [`'${flag}'`, `"${flag}"`, `\`${flag}`, `'${name}'`, `"${name}"`, `${name}: {`].some((form) => source.includes(form));
}

/** The problems of one command line (none: it names only what exists). */
export function checkCommand(line: string): string[] {
  const words = line.match(/"[^"]*"|'[^']*'|\S+/g) ?? [];
  const envless = words.slice(words.findIndex((w) => !/^[A-Z_]+=/.test(w)));
  const [tool, ...rest] = envless;
  if (tool === 'npm' && rest[0] === 'run') {
    const [script, ...args] = rest.slice(1).filter((a) => a !== '-s');
    const command = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts[script!];
    if (!command) return [`npm run ${script}: no such script in package.json`];
    const split = args.indexOf('--');
    const before = split < 0 ? args : args.slice(0, split);
    if (flagsOf(before).length) return [`npm run ${script} ${before.join(' ')}: npm takes these flags itself; write them after --`];
    const file = /\bbun (\S+\.ts)/.exec(command)?.[1];
    const missing = file ? flagsOf(args.slice(split + 1)).filter((f) => !reads(file, f)) : [];
    return missing.map((f) => `npm run ${script}: ${file} does not read ${f}`);
  }
  if (tool === 'npx' && rest[0] === 'bun') {
    const [file, ...args] = rest.slice(1);
    if (!existsSync(join(ROOT, file!))) return [`${file}: no such file`];
    return flagsOf(args)
      .filter((f) => !reads(file!, f))
      .map((f) => `${file} does not read ${f}`);
  }
  if (tool === 'docker' && rest[0] === 'build') {
    const args = rest.flatMap((a, i) => (rest[i - 1] === '--build-arg' ? [a.split('=')[0]!] : []));
    return args.filter((a) => !new RegExp(`^ARG ${a}\\b`, 'm').test(read('Dockerfile'))).map((a) => `Dockerfile has no ARG ${a}`);
  }
  if (tool === 'docker' && rest[0] === 'compose') {
    const services = Object.keys((parse(read('compose.yaml')) as { services: object }).services);
    const pipe = rest.indexOf('|');
    const named = rest.slice(2, pipe < 0 ? undefined : pipe).filter((a) => !a.startsWith('-'));
    return named.filter((s) => !services.includes(s)).map((s) => `compose.yaml has no service ${s}`);
  }
  if (tool === 'export') {
    // An assignment the later lines use: run it (it must succeed here too).
    const run = Bun.spawnSync(['bash', '-euo', 'pipefail', '-c', line], { cwd: ROOT });
    return run.exitCode === 0 ? [] : [`${line}: exit ${run.exitCode}: ${run.stderr.toString()}`];
  }
  return [`the synopsis check does not know the command: ${line}`];
}

/** The problems of a `sh synopsis` block: each command line's (comments and blank lines aside). */
export function checkSynopsis(code: string): string[] {
  return code
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line && !line.startsWith('#'))
    .flatMap(checkCommand);
}
