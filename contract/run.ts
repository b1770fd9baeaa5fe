/**
 * `npm run contract -- [--write] [--reference <openapi.yaml>] [--base-url URL] [--key KEY]`:
 * runs the contract suite (`bun test contract/`) against a deployment. The base URL and the
 * ADMIN key come from the flags or from SVC_BASE_URL and SVC_API_KEY; the exit code is the
 * suite's, so CI can gate on it.
 */
const argv = Bun.argv.slice(2);
const value = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);

if (argv.includes('--help')) {
  process.stdout.write(
    'usage: SVC_BASE_URL=https://host/api/v1 SVC_API_KEY=<ADMIN key> npm run contract -- [--write] [--reference <openapi.yaml>]\n' +
      '  --write       also create and delete an INFERENCE key, and with an operator key a scratch account (nothing is left behind)\n' +
      '  --reference   also validate every body against this OpenAPI description\n' +
      '  --base-url, --key   instead of the environment variables\n' +
      '  SVC_INFERENCE_KEY   an INFERENCE key for the wrong-key-type checks without --write\n',
  );
  process.exit(0);
}

const env: Record<string, string> = { ...(process.env as Record<string, string>) };
if (value('--base-url')) env.SVC_BASE_URL = value('--base-url')!;
if (value('--key')) env.SVC_API_KEY = value('--key')!;
if (argv.includes('--write')) env.CONTRACT_WRITE = '1';
if (value('--reference')) env.CONTRACT_REFERENCE = value('--reference')!;
if (!env.SVC_BASE_URL || !env.SVC_API_KEY) {
  process.stderr.write('contract: set SVC_BASE_URL and SVC_API_KEY (or --base-url and --key); --help for more\n');
  process.exit(2);
}

const dir = new URL('.', import.meta.url).pathname;
const child = Bun.spawn([process.execPath, 'test', '--timeout', '60000', dir], { env, stdout: 'inherit', stderr: 'inherit' });
process.exit(await child.exited);
