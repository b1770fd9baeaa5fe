/**
 * `npm run contract -- [flags]`: runs the contract suite (`bun test contract/`) against a
 * deployment, then prints a table per operation (passed, failed, skipped with the reason) and
 * how much of the generated bad input ran. The base URL and the ADMIN key come from the flags
 * or from SVC_BASE_URL and SVC_API_KEY; the exit code is the suite's, so CI can gate on it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { addSkipsToJunit, summarize, table } from './lib/report';

const VALUE_FLAGS = [
  'base-url',
  'key',
  'reference',
  'abuse-max-failures',
  'abuse-window',
  'max-seconds',
  'bad-input',
  'seed',
  'junit',
] as const;

/** The flags; a misspelt one is refused (exit 2) rather than ignored, so a run never checks less than it was asked to. */
function parseFlags() {
  const options = Object.fromEntries(VALUE_FLAGS.map((name) => [name, { type: 'string' as const }]));
  try {
    return parseArgs({ args: Bun.argv.slice(2), options: { ...options, write: { type: 'boolean' }, help: { type: 'boolean' } } }).values;
  } catch (error) {
    process.stderr.write(`contract: ${(error as Error).message}; --help for the flags\n`);
    process.exit(2);
  }
}
const flagValues = parseFlags();
const value = (flag: string) => (flagValues as Record<string, string | boolean | undefined>)[flag.replace(/^--/, '')] as string | undefined;

if (flagValues.help) {
  process.stdout.write(
    'usage: SVC_BASE_URL=https://host/api/v1 SVC_API_KEY=<ADMIN key> npm run contract -- [flags]\n' +
      '  --write       also create and delete an INFERENCE key, and with an operator key a scratch account (nothing is left behind)\n' +
      '  --reference <openapi.yaml>   also validate every body against this OpenAPI description\n' +
      '  --base-url, --key            instead of the environment variables\n' +
      "  --abuse-max-failures <n>     the deployment's abuse guard: more than n failures ... (default 20; 0: no guard, nothing paced)\n" +
      '  --abuse-window <s>           ... within s seconds block the caller (default 30)\n' +
      '  --max-seconds <s>            the time a run may take; the deliberate failures are budgeted to fit (default 120)\n' +
      '  --bad-input all|<n>          every generated bad-input case, or n of them (default: as many as the budget allows)\n' +
      '  --seed <n>                   which sample of the bad-input cases runs (default: a new one each run, printed)\n' +
      '  --junit <file>               also write a JUnit XML report\n' +
      '  SVC_INFERENCE_KEY            an INFERENCE key for the wrong-key-type checks without --write\n',
  );
  process.exit(0);
}

const env: Record<string, string> = { ...(process.env as Record<string, string>) };
const flags: [flag: string, variable: string][] = [
  ['--base-url', 'SVC_BASE_URL'],
  ['--key', 'SVC_API_KEY'],
  ['--reference', 'CONTRACT_REFERENCE'],
  ['--abuse-max-failures', 'CONTRACT_ABUSE_MAX_FAILURES'],
  ['--abuse-window', 'CONTRACT_ABUSE_WINDOW'],
  ['--max-seconds', 'CONTRACT_MAX_SECONDS'],
  ['--bad-input', 'CONTRACT_BAD_INPUT'],
  ['--seed', 'CONTRACT_SEED'],
];
for (const [flag, variable] of flags) if (value(flag) !== undefined) env[variable] = value(flag)!;
if (flagValues.write) env.CONTRACT_WRITE = '1';
// A new sample each run unless asked for one; the report prints it so a run can be repeated.
env.CONTRACT_SEED ??= String(Math.floor(Math.random() * 1_000_000));
if (!env.SVC_BASE_URL || !env.SVC_API_KEY) {
  process.stderr.write('contract: set SVC_BASE_URL and SVC_API_KEY (or --base-url and --key); --help for more\n');
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), 'svc-contract-run-'));
env.CONTRACT_NOTES = join(work, 'notes.txt');
const junit = value('--junit');
const reporter = junit ? ['--reporter=junit', `--reporter-outfile=${junit}`] : [];
const dir = new URL('.', import.meta.url).pathname;
const child = Bun.spawn([process.execPath, 'test', '--timeout', '60000', ...reporter, dir], { env, stdout: 'pipe', stderr: 'pipe' });

/** Copies a stream of the suite's output through, and keeps its text for the table. */
async function tee(stream: ReadableStream<Uint8Array>, to: NodeJS.WriteStream): Promise<string> {
  let text = '';
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    to.write(chunk);
    text += decoder.decode(chunk, { stream: true });
  }
  return text;
}
const [out, err] = await Promise.all([tee(child.stdout, process.stdout), tee(child.stderr, process.stderr)]);
const code = await child.exited;

const notes = (() => {
  try {
    return readFileSync(env.CONTRACT_NOTES, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
})();
rmSync(work, { recursive: true, force: true });
const rows = summarize(`${out}\n${err}`, notes);
process.stdout.write(`\n${table(rows)}\n`);
for (const line of notes) if (!line.startsWith('contract: skipped ')) process.stdout.write(`${line}\n`);
if (junit) addSkipsToJunit(junit, notes);
process.exit(code);
