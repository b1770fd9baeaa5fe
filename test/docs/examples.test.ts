import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatePrivateKey } from 'viem/accounts';
import { loadConfig } from '../../src/config';
import { checkConfigSections } from '../../src/config-sections';
import { startFacilitator, type FixtureFacilitator } from '../fixtures/x402-facilitator';
import { documentationPages, fencedBlocks, pageText, ROOT } from './markdown';
import { runExample, scratchFolder, serve, type Served } from './run-example';
import { checkCommand, checkSynopsis } from './synopsis';

// Every shell and TypeScript block of the README and docs/ says how it is checked, in its
// info string, and a block that says nothing fails this suite:
// - `sh example`, `ts example`: run against a listening svc (the default catalog on the
//   simulator, the bootstrap ADMIN key in $KEY), in a scratch folder holding photo.jpg, a.jpg
//   and b.jpg; the examples name http://localhost:8080, the test points them at its server.
//   It must exit 0 (a shell example printing no JSON error body, a TypeScript one nothing on stderr).
// - `ts example wallet`: the same against a svc taking x402 payments through the fixture
//   facilitator (test/fixtures/x402-facilitator.ts), with a fresh private key in $WALLET_KEY.
// - `sh example plugin`, `ts file <path>`: the worked plugin example, run by plugin-guide.test.ts.
// - `ts excerpt <file>`: a quotation: the block's lines are in that file, in order.
// - `sh synopsis`: commands that cannot run here, checked against what they name (synopsis.ts).
// - `sh not-run`, `ts not-run`: not checked at all; the reason is in NOT_RUN below, keyed by the
//   page and the block's first line (a block without one fails, and so does a stale reason).
const NOT_RUN: Record<string, string> = {
  'README.md: npm install && npm start':
    'installs and starts a server that runs until stopped; test/foundation/boot.test.ts starts svc as npm start does and checks the first start (the ADMIN key on stderr, the API served)',
  'README.md: npm test': 'the whole suite, this test included',
  'docs/getting-started.md: npm install && npm start': "as the README's: test/foundation/boot.test.ts checks the first start",
  'docs/getting-started.md: export KEY=svc_...   # the key the first start printed':
    "the test sets $KEY itself, to its own server's bootstrap key",
};

const CODE_LANGUAGES = new Set(['sh', 'bash', 'shell', 'console', 'ts', 'typescript', 'js', 'javascript']);
const BLOCKS = documentationPages().flatMap((page) =>
  fencedBlocks(pageText(page))
    .filter((b) => CODE_LANGUAGES.has(b.info.split(' ')[0]!))
    .map((b) => {
      const [language, kind = '', ...args] = b.info.split(' ');
      return { name: `${page}:${b.line} (${b.info})`, page, language: language!, kind, args, ...b };
    }),
);
const of = (kind: string, ...args: string[]) => BLOCKS.filter((b) => b.kind === kind && args.every((a, i) => b.args[i] === a));
const notRunKey = (b: { page: string; code: string }) => `${b.page}: ${b.code.split('\n')[0]}`;

// Every ```yaml block is a piece of svc.config.yaml (other YAML says so: ```yaml characters),
// loaded and checked section by section as a start would.
const CONFIG_SNIPPETS = documentationPages().flatMap((page) =>
  fencedBlocks(pageText(page))
    .filter((b) => b.info === 'yaml')
    .map((b) => ({ name: `${page}:${b.line}`, ...b })),
);

let plain: Served;
let paying: { served: Served; facilitator: FixtureFacilitator } | undefined;
let scratch = '';
beforeAll(async () => {
  plain = await serve();
  scratch = await scratchFolder();
});
afterAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  await plain.stop();
  if (paying) {
    await paying.served.stop();
    paying.facilitator.stop();
  }
});

/** The app taking x402 payments, started by the first wallet example. */
async function payingApp(): Promise<Served> {
  if (paying) return paying.served;
  const facilitator = startFacilitator();
  const payTo = { base: '0x2670B922ef37C7Df47158725C0CC407b5382293F' };
  paying = { served: await serve({ wallets: { payments: { facilitatorUrl: facilitator.url, payTo } } }), facilitator };
  return paying.served;
}

describe('documentation examples', () => {
  test('the tools the shell examples use are installed (bash, curl, jq)', () => {
    expect(['bash', 'curl', 'jq'].filter((tool) => !Bun.which(tool))).toEqual([]);
  });

  test('every shell and TypeScript block says how it is checked', () => {
    const unknown = BLOCKS.filter((b) => !['example', 'excerpt', 'synopsis', 'not-run', 'file'].includes(b.kind)).map((b) => b.name);
    expect(unknown).toEqual([]);
  });

  test('every block not run has its reason here, and every reason its block', () => {
    const blocks = of('not-run').map(notRunKey);
    expect(blocks.filter((key) => !NOT_RUN[key])).toEqual([]);
    expect(Object.keys(NOT_RUN).filter((key) => !blocks.includes(key))).toEqual([]);
  });

  test('the README has runnable examples (curl, the OpenAI SDK and the AI SDK provider)', () => {
    const readme = of('example').filter((e) => e.page === 'README.md');
    expect(readme.map((e) => e.language).sort()).toEqual(['sh', 'ts', 'ts']);
  });

  test.each(CONFIG_SNIPPETS)('$name is a valid piece of the config file', ({ code, line }) => {
    const file = join(ROOT, 'test', 'docs', `.example-${line}.yaml`);
    writeFileSync(file, code);
    try {
      loadConfig({ SVC_CONFIG: file, VLLM_API_KEY: 'sk-example', OPENAI_API_KEY: 'sk-example' }, checkConfigSections);
    } finally {
      rmSync(file, { force: true });
    }
  });

  test.each(of('excerpt'))('$name is quoted from its file', ({ code, args }) => {
    const source = readFileSync(join(ROOT, args[0]!), 'utf8').split('\n');
    const lines = code.split('\n').filter((l) => l.trim() && l.trim() !== '// ...');
    let at = 0;
    for (const line of lines) {
      const found = source.findIndex((s, i) => i >= at && s.trim() === line.trim());
      expect(found, `not in ${args[0]} (after line ${at}): ${line}`).toBeGreaterThanOrEqual(0);
      at = found + 1;
    }
  });

  test('commands quoted in the text name scripts, files and flags that exist', () => {
    // The dated notes in docs/perf-notes/ are history: they name probes since removed.
    const quoted = documentationPages()
      .filter((page) => !page.startsWith('docs/perf-notes/'))
      .flatMap((page) =>
        [...pageText(page).matchAll(/`((?:npm run|npx bun (?:bench|src|contract)\/)[^`]*)`/g)]
          .map((m) => m[1]!)
          .filter((command) => !command.includes('...'))
          .flatMap((command) => checkCommand(command).map((problem) => `${page}: ${problem}`)),
      );
    expect(quoted).toEqual([]);
  });

  test.each(of('synopsis'))('$name names only commands, scripts and flags that exist', ({ code }) => {
    expect(checkSynopsis(code)).toEqual([]);
  });

  test.each(of('example').filter((b) => b.args[0] !== 'plugin'))(
    '$name runs and gets no error',
    async (example) => {
      if (example.args[0] !== 'wallet') return runExample(example, plain, scratch);
      return runExample(example, await payingApp(), scratch, { WALLET_KEY: generatePrivateKey() });
    },
    60_000,
  );
});
