import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { generatePrivateKey } from 'viem/accounts';
import { loadConfig } from '../../src/config';
import { checkConfigSections } from '../../src/config-sections';
import { startTestApp, type TestApp } from '../helpers/app';
import { startFacilitator, type FixtureFacilitator } from '../fixtures/x402-facilitator';
import { documentationPages, fencedBlocks, pageText, ROOT } from './markdown';
import { checkSynopsis } from './synopsis';

// Every shell and TypeScript block of the README and docs/ says how it is checked, in its
// info string, and a block that says nothing fails this suite:
// - `sh example`, `ts example`: run against a listening svc (the default catalog on the
//   simulator, the bootstrap ADMIN key in $KEY), in a scratch folder holding photo.jpg, a.jpg
//   and b.jpg; the examples name http://localhost:8080, the test points them at its server.
//   It must exit 0 (a shell example printing no JSON error body, a TypeScript one nothing on stderr).
// - `ts example wallet`: the same against a svc taking x402 payments through the fixture
//   facilitator (test/fixtures/x402-facilitator.ts), with a fresh private key in $WALLET_KEY.
// - `ts excerpt <file>`: a quotation: the block's lines are in that file, in order.
// - `sh synopsis`: commands that cannot run here, checked against what they name (synopsis.ts).
// - `sh not-run`, `ts not-run`: not checked at all; the reason is in NOT_RUN below, keyed by the
//   page and the block's first line (a block without one fails, and so does a stale reason).
const NOT_RUN: Record<string, string> = {
  'README.md: npm install && npm start':
    'installs and starts a server that runs until stopped; test/foundation/boot.test.ts starts svc as npm start does and checks the first start (the ADMIN key on stderr, the API served)',
  'README.md: npm test': 'the whole suite, this test included',
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

/** A listening app and where examples reach it. */
interface Served {
  t: TestApp;
  base: string;
  facilitator?: FixtureFacilitator;
}
let plain: Served;
let paying: Served | undefined;
let scratch = '';
beforeAll(async () => {
  plain = await serve({});
  // A scratch folder inside the repository, so examples find its node_modules and npm its scripts.
  scratch = mkdtempSync(join(ROOT, 'test', 'docs', '.examples-'));
  const pixels = Buffer.alloc(512 * 512 * 3, 0).map((_, i) => (i * 7) % 256);
  const jpeg = await sharp(pixels, { raw: { width: 512, height: 512, channels: 3 } })
    .jpeg()
    .toBuffer();
  for (const name of ['photo.jpg', 'a.jpg', 'b.jpg']) writeFileSync(join(scratch, name), jpeg);
});
afterAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  for (const s of [plain, paying]) {
    if (!s) continue;
    await s.t.app.stop(true);
    await s.t.close();
    s.facilitator?.stop();
  }
});

/** Starts an app listening on 127.0.0.1 whose public URL is the one examples reach it at. */
async function serve(config: Record<string, unknown>, facilitator?: FixtureFacilitator): Promise<Served> {
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() });
  const port = probe.port;
  probe.stop(true);
  const base = `http://127.0.0.1:${port}`;
  const t = await startTestApp({ config: { publicUrl: base, ...config } });
  t.app.listen({ hostname: '127.0.0.1', port });
  return { t, base, facilitator };
}

/** The app taking x402 payments, started by the first wallet example. */
async function payingApp(): Promise<Served> {
  if (paying) return paying;
  const facilitator = startFacilitator();
  const payTo = { base: '0x2670B922ef37C7Df47158725C0CC407b5382293F' };
  paying = await serve({ wallets: { payments: { facilitatorUrl: facilitator.url, payTo } } }, facilitator);
  return paying;
}

/** Runs an example's command in the scratch folder against `served`; its exit code and output. */
async function run(cmd: string[], served: Served, env: Record<string, string> = {}) {
  const proc = Bun.spawn(cmd, { cwd: scratch, env: { ...process.env, KEY: served.t.adminKey, ...env }, stdout: 'pipe', stderr: 'pipe' });
  const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code, stdout, stderr };
}

describe('documentation examples', () => {
  test('every shell and TypeScript block says how it is checked', () => {
    const unknown = BLOCKS.filter((b) => !['example', 'excerpt', 'synopsis', 'not-run'].includes(b.kind)).map((b) => b.name);
    expect(unknown).toEqual([]);
  });

  test('every block not run has its reason here, and every reason its block', () => {
    const blocks = of('not-run').map(notRunKey);
    expect(blocks.filter((key) => !NOT_RUN[key])).toEqual([]);
    expect(Object.keys(NOT_RUN).filter((key) => !blocks.includes(key))).toEqual([]);
  });

  test('the README has runnable examples (curl and the OpenAI SDK)', () => {
    const readme = of('example').filter((e) => e.page === 'README.md');
    expect(readme.map((e) => e.language).sort()).toEqual(['sh', 'ts']);
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

  test.each(of('synopsis'))('$name names only commands, scripts and flags that exist', ({ code }) => {
    expect(checkSynopsis(code)).toEqual([]);
  });

  test.each(of('example'))(
    '$name runs and gets no error',
    async (example) => {
      const wallet = example.args[0] === 'wallet';
      const served = wallet ? await payingApp() : plain;
      const code = example.code.replaceAll('http://localhost:8080', served.base);
      if (example.language === 'sh') {
        // curl -s prints nothing on stderr; what a command prints there (a test runner's report) is not an error.
        const { code: exit, stdout, stderr } = await run(['bash', '-euo', 'pipefail', '-c', code], served);
        expect({ exit, stderr: exit === 0 ? '' : stderr }).toEqual({ exit: 0, stderr: '' });
        expect(stdout).not.toContain('"error"');
        expect(stdout.length).toBeGreaterThan(0);
      } else {
        const file = join(scratch, `example-${example.line}.ts`);
        writeFileSync(file, code);
        const {
          code: exit,
          stdout,
          stderr,
        } = await run([process.execPath, file], served, wallet ? { WALLET_KEY: generatePrivateKey() } : {});
        expect({ exit, stderr }).toEqual({ exit: 0, stderr: '' });
        expect(stdout.length).toBeGreaterThan(0);
      }
    },
    60_000,
  );
});
