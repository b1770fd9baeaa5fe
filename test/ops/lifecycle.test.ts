import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/log';
import { healthRoutes } from '../../src/http/health';
import { dataDirHolder, DataDirLockedError, lockDataDir } from '../../src/lifecycle/data-lock';
import { startTestApp } from '../helpers/app';

const dir = mkdtempSync(join(tmpdir(), 'svc-lifecycle-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('data-directory lock', () => {
  test('is taken, records the API URL, and is released', () => {
    const data = join(dir, 'a');
    const lock = lockDataDir(data);
    const file = join(data, 'svc.lock.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ pid: process.pid, url: null });
    lock.listening('http://127.0.0.1:1234/api/v1');
    expect(JSON.parse(readFileSync(file, 'utf8')).url).toBe('http://127.0.0.1:1234/api/v1');
    lock.release();
    expect(existsSync(file)).toBe(false);
  });

  test('a live process holding it is named; a lock left by a dead process is taken over', () => {
    const data = join(dir, 'b');
    lockDataDir(data).release();
    const file = join(data, 'svc.lock.json');
    // The test runner's parent is alive and is not this process.
    writeFileSync(file, JSON.stringify({ pid: process.ppid, url: 'http://127.0.0.1:9/api/v1', startedAt: '' }));
    expect(dataDirHolder(data)?.pid).toBe(process.ppid);
    expect(() => lockDataDir(data)).toThrow(DataDirLockedError);
    expect(() => lockDataDir(data)).toThrow(`held by a running svc (pid ${process.ppid}, http://127.0.0.1:9/api/v1)`);
    // A pid above Linux's maximum cannot be running.
    writeFileSync(file, JSON.stringify({ pid: 4_194_305, url: null, startedAt: '' }));
    expect(dataDirHolder(data)).toBeNull();
    const lock = lockDataDir(data);
    expect(JSON.parse(readFileSync(file, 'utf8')).pid).toBe(process.pid);
    lock.release();
  });
});

describe('readiness while shutting down', () => {
  test('/ready answers 503 once draining has begun', async () => {
    const t = await startTestApp({ log: createLogger('silent') });
    try {
      let draining = false;
      const probe = healthRoutes(t.deps, () => draining);
      expect((await probe.handle(new Request('http://localhost/ready'))).status).toBe(200);
      draining = true;
      const res = await probe.handle(new Request('http://localhost/ready'));
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ error: 'Not ready: shutting down', status: 'draining' });
      expect((await probe.handle(new Request('http://localhost/health'))).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('access log switch', () => {
  test('accessLog: false writes no request lines; metrics still count', async () => {
    const lines: string[] = [];
    const t = await startTestApp({ config: { accessLog: false }, log: createLogger('info', (l) => void lines.push(l)) });
    try {
      await t.request('/models', { key: null });
      await new Promise((resolve) => setImmediate(resolve));
      expect(lines.filter((l) => l.includes('"msg":"request"'))).toEqual([]);
      const metrics = await (await t.app.handle(new Request('http://localhost/metrics'))).text();
      expect(metrics).toMatch(/svc_http_requests_total\{method="GET",route="\/api\/v1\/models",status="200"\} \d+/);
    } finally {
      await t.close();
    }
  });
});
