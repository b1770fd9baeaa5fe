import { expect } from 'bun:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import type { AppExtras } from '../../src/app';
import { startTestApp, type TestApp } from '../helpers/app';
import type { FencedBlock } from './markdown';
import { ROOT } from './markdown';

/** A listening app and the base URL examples reach it at (also its public URL). */
export interface Served {
  t: TestApp;
  base: string;
  stop(): Promise<void>;
}

/** Starts an app listening on 127.0.0.1 whose public URL is the one examples reach it at. */
export async function serve(config: Record<string, unknown> = {}, extras?: AppExtras): Promise<Served> {
  const probe = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() });
  const port = probe.port;
  probe.stop(true);
  const base = `http://127.0.0.1:${port}`;
  const t = await startTestApp({ config: { publicUrl: base, ...config }, extras });
  t.app.listen({ hostname: '127.0.0.1', port });
  return {
    t,
    base,
    async stop() {
      await t.app.stop(true);
      await t.close();
    },
  };
}

/**
 * A scratch folder inside the repository (so examples find its node_modules and npm its
 * scripts) holding photo.jpg, a.jpg and b.jpg (512 x 512), the files the image examples name.
 */
export async function scratchFolder(): Promise<string> {
  const folder = mkdtempSync(join(ROOT, 'test', 'docs', '.examples-'));
  const pixels = Buffer.alloc(512 * 512 * 3, 0).map((_, i) => (i * 7) % 256);
  const jpeg = await sharp(pixels, { raw: { width: 512, height: 512, channels: 3 } })
    .jpeg()
    .toBuffer();
  for (const name of ['photo.jpg', 'a.jpg', 'b.jpg']) writeFileSync(join(folder, name), jpeg);
  return folder;
}

/**
 * Runs an `sh example` or `ts example` block in `folder` against `served`, with the bootstrap
 * ADMIN key in $KEY: the examples name http://localhost:8080, pointed here at the app. It must
 * exit 0; a shell example must print something and no JSON error body (curl -s prints nothing
 * on stderr; a test runner's report there is not an error), a TypeScript one nothing on stderr.
 */
export async function runExample(
  example: FencedBlock & { language: string },
  served: Served,
  folder: string,
  env: Record<string, string> = {},
): Promise<void> {
  const code = example.code.replaceAll('http://localhost:8080', served.base);
  const file = join(folder, `example-${example.line}.ts`);
  if (example.language !== 'sh') writeFileSync(file, code);
  const cmd = example.language === 'sh' ? ['bash', '-euo', 'pipefail', '-c', code] : [process.execPath, file];
  const proc = Bun.spawn(cmd, { cwd: folder, env: { ...process.env, KEY: served.t.adminKey, ...env }, stdout: 'pipe', stderr: 'pipe' });
  const [exit, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  expect({ exit, stderr: exit === 0 && example.language === 'sh' ? '' : stderr }).toEqual({ exit: 0, stderr: '' });
  expect(stdout.length).toBeGreaterThan(0);
  if (example.language === 'sh') expect(stdout).not.toContain('"error"');
}
