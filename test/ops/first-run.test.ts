import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp } from '../helpers/app';
import { answers, freePort, serverEnv, spawnSvc, until } from '../helpers/svc-process';

// What a newcomer meets on a first run: the server says where it listens (and warns when that
// is every interface with the funded bootstrap key live), and its address answers with links.
const dir = mkdtempSync(join(tmpdir(), 'svc-first-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a first run', () => {
  test('on every interface, with the bootstrap key live: the address is printed with a warning', async () => {
    const port = freePort();
    const child = spawnSvc(serverEnv({ HOST: '0.0.0.0', PORT: String(port), SVC_DATA_DIR: join(dir, 'data') }));
    try {
      await until('svc ready', answers(`http://127.0.0.1:${port}/ready`, 200), 90_000);
      await until('the banner', () => child.stderr.includes('svc: listening on'), 10_000);
      expect(child.stderr).toContain(`svc: listening on 0.0.0.0:${port}, every interface (open http://localhost:${port}/api/v1)`);
      expect(child.stderr).toContain('svc: WARNING: listening on every interface (0.0.0.0) while the bootstrap ADMIN key is live');
      expect(child.stderr).toContain('set HOST=127.0.0.1');
    } finally {
      child.proc.kill('SIGKILL');
      await child.proc.exited;
    }
  }, 120_000);

  test('GET / answers with links to the API, the docs and the console, each of which answers', async () => {
    const t = await startTestApp();
    try {
      const res = await t.app.handle(new Request('http://localhost/'));
      expect(res.status).toBe(200);
      const body = (await res.json()) as { links: Record<string, string> };
      expect(body.links).toMatchObject({ api: '/api/v1', docs: '/docs', console: '/console', models: '/api/v1/models?type=all' });
      for (const path of [body.links.docs!, body.links.console!, body.links.openapi!, body.links.health!])
        expect([200, 301, 302, 308]).toContain((await t.app.handle(new Request(`http://localhost${path}`))).status);
    } finally {
      await t.close();
    }
  });
});

test('GET /models (text only by default) links to the list of every type', async () => {
  const t = await startTestApp();
  try {
    const text = await t.app.handle(new Request('http://localhost/api/v1/models'));
    expect(text.headers.get('link')).toBe('</api/v1/models?type=all>; rel="alternate"; title="models of every type"');
    const all = (await (await t.app.handle(new Request('http://localhost/api/v1/models?type=all'))).json()) as { data: unknown[] };
    expect(all.data.length).toBeGreaterThan(((await text.json()) as { data: unknown[] }).data.length);
  } finally {
    await t.close();
  }
});

test('every operation of the docs has a summary in words, not its path', async () => {
  const t = await startTestApp();
  try {
    const spec = (await (await t.app.handle(new Request('http://localhost/api/v1/openapi.json'))).json()) as {
      paths: Record<string, Record<string, { summary?: string }>>;
    };
    const bare = Object.entries(spec.paths).flatMap(([path, ops]) =>
      Object.entries(ops)
        .filter(([, op]) => !op.summary || op.summary.startsWith('/'))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(bare).toEqual([]);
  } finally {
    await t.close();
  }
});
