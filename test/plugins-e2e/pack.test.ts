import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';

// A plugin as an operator installs one: the SDK and the example packed with `npm pack`
// (their `prepare` builds dist/), installed from the tarballs into a scratch folder beside
// svc, named in a config by its installed path, and called through the openai SDK.
const root = join(import.meta.dir, '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'svc-plugin-pack-'));
let svc: ReturnType<typeof Bun.spawn> | null = null;
let client: OpenAI;
let model = '';

/** Runs a command, failing the test with its output when it fails. */
async function run(cmd: string[], cwd: string): Promise<string> {
  const proc = Bun.spawn(cmd, {
    cwd,
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' },
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${cmd.join(' ')} failed (${code}):\n${out}\n${err}`);
  return out;
}

/** Reads a stream's text until `pattern` matches (or it ends). */
async function readUntil(stream: ReadableStream<Uint8Array>, pattern: RegExp): Promise<RegExpMatchArray> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`svc ended before ${pattern}:\n${text}`);
    text += decoder.decode(value, { stream: true });
    const m = text.match(pattern);
    if (m) {
      reader.releaseLock();
      return m;
    }
  }
}

beforeAll(async () => {
  const sdk = (await run(['npm', 'pack', '--silent', '--pack-destination', scratch], join(root, 'packages/plugin-sdk')))
    .trim()
    .split('\n')
    .at(-1)!;
  const shout = (await run(['npm', 'pack', '--silent', '--pack-destination', scratch], join(root, 'examples/plugin-shout')))
    .trim()
    .split('\n')
    .at(-1)!;
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'scratch', private: true }));
  await run(['npm', 'install', '--no-save', '--prefer-offline', '--ignore-scripts', `./${sdk}`, `./${shout}`], scratch);
  const config = join(scratch, 'svc.config.yaml');
  writeFileSync(
    config,
    `port: 0\nhost: 127.0.0.1\nplugins:\n  - package: ./node_modules/svc-plugin-shout\n    options: { suffix: " (shouted)" }\n`,
  );
  svc = Bun.spawn([process.execPath, 'src/index.ts'], {
    cwd: root,
    env: {
      ...process.env,
      SVC_CONFIG: config,
      SVC_DATA_DIR: join(scratch, 'data'),
      DATABASE_URL: '',
      REDIS_URL: '',
      SVC_LOG_LEVEL: 'info',
      SVC_ACCESS_LOG: 'false',
    },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [, key] = await readUntil(svc.stderr as ReadableStream<Uint8Array>, /API key \(shown once[^\n]*\n\n\s+(\S+)/);
  const [, url] = await readUntil(svc.stdout as ReadableStream<Uint8Array>, /"url":"(http:[^"]+)"/);
  client = new OpenAI({ baseURL: url!.replace('localhost', '127.0.0.1'), apiKey: key!, maxRetries: 0 });
  model = (await client.models.list()).data[0]!.id;
}, 180_000);

afterAll(async () => {
  // SIGINT: the shutdown without the load balancer's drain.
  svc?.kill('SIGINT');
  await svc?.exited;
  rmSync(scratch, { recursive: true, force: true });
}, 60_000);

test('the installed package answers JSON through the openai SDK', async () => {
  const res = await client.chat.completions.create({
    model,
    messages: [{ role: 'user', content: 'hello' }],
    // @ts-expect-error svc extension of the request body
    svc_parameters: { shout: true },
  });
  expect(res.choices[0]!.message.content).toEndWith(' (shouted)');
});

test('and streams, turned on by the model suffix', async () => {
  const stream = await client.chat.completions.create({
    model: `${model}:shout=true`,
    messages: [{ role: 'user', content: 'hello' }],
    stream: true,
  });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  expect(text).toEndWith(' (shouted)');
});
