import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/app';
import { createDeps } from '../../src/boot';
import { parseConfig } from '../../src/config';
import type { AppDeps } from '../../src/deps';
import { claimDue, findJob } from '../../src/jobs/store';
import { stopJobs } from '../../src/jobs/runtime';
import { startTestApp, type TestApp } from '../helpers/app';
import { BACKENDS } from '../helpers/backends';
import { startMediaJobsUpstream, type MediaJobsUpstream } from '../fixtures/media-jobs-upstream';
import { ledgerOf, post, retrieveUntilDone, upstreamJobsConfig, usdBalance } from './helpers';

const VIDEO = { model: 'fixture-video', duration: '5s', resolution: '720p' };
const VIDEO_PRICE = 550_000;

/** A second app instance on the same database and KV as `first` (another process of the same deployment). */
async function secondInstance(first: TestApp, config: Record<string, unknown>): Promise<{ deps: AppDeps; request: TestApp['request'] }> {
  const parsed = parseConfig({ logLevel: 'silent', abuseGuard: { enabled: false }, ...config });
  const deps = await createDeps(parsed, { storage: first.deps.storage, kv: first.deps.kv });
  const app = createApp(deps);
  return {
    deps,
    request(path, init = {}) {
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${first.adminKey}`);
      headers.set('content-type', 'application/json');
      return app.handle(
        new Request(`http://localhost${parsed.basePath}${path}`, { method: 'POST', headers, body: JSON.stringify(init.json) }),
      );
    },
  };
}

for (const backend of BACKENDS)
  describe(`media jobs survive a restart and run on several instances (${backend.name})`, () => {
    let t: TestApp;
    let up: MediaJobsUpstream;
    let dir: string;
    let config: Record<string, unknown>;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'svc-jobs-dur-'));
      up = startMediaJobsUpstream({ pollsToDone: 3 });
      config = upstreamJobsConfig(dir, up.url, { leaseMs: 400 });
      t = await startTestApp({ backend, config });
    });
    afterAll(async () => {
      await t.close();
      up.close();
      rmSync(dir, { recursive: true, force: true });
    });

    test('an instance killed holding a job: another takes it when the lease ends, finishes it, charges once', async () => {
      // The first instance stops polling (its runner is gone), as a killed process would.
      await stopJobs(t.deps);
      const before = await usdBalance(t);
      const res = await post(t, '/video/queue', { ...VIDEO, prompt: 'Survives a crash' });
      const { queue_id } = (await res.json()) as { queue_id: string };
      const requestId = res.headers.get('cf-ray')!;
      // A worker claims it and dies mid-job: its lease is left behind.
      const claimed = await claimDue(t.deps.storage.db, 'dead-worker', Date.now() + 1000, 400, 10);
      expect(claimed.map((j) => j.id)).toEqual([queue_id]);

      const restarted = await secondInstance(t, config);
      try {
        let body: Response | null = null;
        for (let i = 0; i < 200 && !body; i++) {
          const r = await restarted.request('/video/retrieve', { json: { model: 'fixture-video', queue_id } });
          if (r.headers.get('content-type') === 'video/mp4') body = r;
          else await Bun.sleep(40);
        }
        expect(body?.status).toBe(200);
        const job = await findJob(t.deps.storage.db, queue_id);
        expect(job?.status).toBe('COMPLETED');
        expect(job?.polls).toBeGreaterThanOrEqual(2);
        await restarted.deps.meter.flush();
        expect(await ledgerOf(t, requestId)).toEqual([{ kind: 'CHARGE', amount: -VIDEO_PRICE }]);
        // Embedded, each instance keeps its own in-process balance mirror (one process per data folder in production); Redis shares it.
        if (backend.name === 'external') expect(before - (await usdBalance(t))).toBe(VIDEO_PRICE);
      } finally {
        await stopJobs(restarted.deps);
        await restarted.deps.meter.close();
      }
    }, 30_000);

    test('two instances polling the same jobs: each job polled by one at a time, finished and charged once', async () => {
      // Leases longer than a download on a busy machine: this test is about claims, the one above about leases running out.
      const longLeases = { ...config, jobs: { ...(config.jobs as object), leaseMs: 10_000 } };
      const one = await secondInstance(t, longLeases);
      const two = await secondInstance(t, longLeases);
      try {
        const before = await usdBalance(t);
        const ids: { queueId: string; requestId: string }[] = [];
        for (let i = 0; i < 6; i++) {
          const res = await one.request('/video/queue', { json: { ...VIDEO, prompt: `Job ${i}` } });
          expect(res.status).toBe(200);
          ids.push({ queueId: ((await res.json()) as { queue_id: string }).queue_id, requestId: res.headers.get('cf-ray')! });
        }
        for (const { queueId } of ids) {
          const done = await retrieveUntilDone(t, 'video', 'fixture-video', queueId);
          expect(done.status).toBe(200);
        }
        await one.deps.meter.flush();
        await two.deps.meter.flush();
        for (const { queueId, requestId } of ids) {
          expect(await ledgerOf(t, requestId)).toEqual([{ kind: 'CHARGE', amount: -VIDEO_PRICE }]);
          const upstream = [...up.jobs.values()].find((j) => j.body.prompt === `Job ${ids.findIndex((x) => x.queueId === queueId)}`)!;
          // One download per job: no two workers finished the same job.
          expect(upstream.downloads).toBe(1);
        }
        if (backend.name === 'external') expect(before - (await usdBalance(t))).toBe(6 * VIDEO_PRICE);
      } finally {
        for (const d of [one.deps, two.deps]) {
          await stopJobs(d);
          await d.meter.close();
        }
      }
    }, 30_000);
  });
