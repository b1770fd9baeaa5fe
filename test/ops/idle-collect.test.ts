import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { idleCollector } from '../../src/lifecycle/idle-collect';

const MB = 1024 * 1024;

/** Readings a test scripts tick by tick: RSS and the CPU used since the last tick. */
function scripted() {
  const state = { rss: 200 * MB, cpu: 0, collections: 0, rssAfterCollect: 0 };
  const readings = {
    rss: () => state.rss,
    cpuUs: () => state.cpu,
    collect: () => {
      state.collections++;
      if (state.rssAfterCollect) state.rss = state.rssAfterCollect;
    },
  };
  const busy = () => (state.cpu += 500_000);
  const idle = () => (state.cpu += 1_000);
  return { state, readings, busy, idle };
}

describe('the idle collector', () => {
  test('collects once the process is quiet for two ticks after RSS grew by the threshold, then not again while idle', () => {
    const s = scripted();
    const tick = idleCollector(s.readings, { growthBytes: 32 * MB });
    s.busy();
    s.state.rss = 400 * MB;
    expect(tick().collected).toBe(false); // busy
    s.idle();
    expect(tick().collected).toBe(false); // one quiet tick
    s.idle();
    s.state.rssAfterCollect = 300 * MB;
    expect(tick()).toMatchObject({ collected: true, rssBefore: 400 * MB, floorBefore: 200 * MB });
    // The allocator gives the pages back over the next ticks; nothing is collected again.
    s.state.rss = 240 * MB;
    for (let i = 0; i < 10; i++) {
      s.idle();
      expect(tick().collected).toBe(false);
    }
    expect(s.state.collections).toBe(1);
  });

  test('never collects while the process is busy, nor when RSS grew less than the threshold', () => {
    const s = scripted();
    const tick = idleCollector(s.readings, { growthBytes: 32 * MB });
    s.state.rss = 500 * MB;
    for (let i = 0; i < 10; i++) {
      s.busy();
      expect(tick().collected).toBe(false);
    }
    const t = idleCollector(s.readings, { growthBytes: 32 * MB });
    s.state.rss += 31 * MB;
    for (let i = 0; i < 10; i++) {
      s.idle();
      expect(t().collected).toBe(false);
    }
    expect(s.state.collections).toBe(0);
  });

  test("by default, an idle svc's own background work (~20 ms of CPU a second) counts as quiet and 60 ms a second does not", () => {
    const s = scripted();
    const tick = idleCollector(s.readings, { growthBytes: 32 * MB });
    s.state.rss = 400 * MB;
    for (let i = 0; i < 5; i++) {
      s.state.cpu += 60_000;
      expect(tick().collected).toBe(false);
    }
    s.state.cpu += 25_000;
    expect(tick().collected).toBe(false);
    s.state.cpu += 25_000;
    expect(tick().collected).toBe(true);
  });

  test('the growth is measured from the lowest RSS since the last collection', () => {
    const s = scripted();
    s.state.rss = 300 * MB;
    const tick = idleCollector(s.readings, { growthBytes: 32 * MB });
    s.state.rss = 250 * MB; // the pages of start-up go back
    s.idle();
    tick();
    s.state.rss = 290 * MB; // below the first reading + 32, above the floor + 32
    s.idle();
    expect(tick().collected).toBe(true);
  });
});

// Black-box: svc started as an operator starts it, with a 1 MB threshold and debug logs, says
// it collected once some traffic has come and gone.
const root = join(import.meta.dir, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'svc-idle-collect-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('svc collects after traffic stops (SVC_IDLE_COLLECT_MB)', async () => {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  const proc = Bun.spawn([process.execPath, 'src/index.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      SVC_DATA_DIR: join(dir, 'data'),
      SVC_CONFIG: '',
      DATABASE_URL: '',
      REDIS_URL: '',
      SVC_LOG_LEVEL: 'debug',
      SVC_ACCESS_LOG: 'false',
      SVC_IDLE_COLLECT_MB: '1',
      SVC_SHUTDOWN_DRAIN_SECONDS: '0',
    },
    stdout: 'pipe',
    stderr: 'ignore',
  });
  try {
    let out = '';
    const decoder = new TextDecoder();
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
    const until = async (text: string) => {
      while (!out.includes(text)) {
        const { value, done } = await reader.read();
        if (done) return false;
        out += decoder.decode(value, { stream: true });
      }
      return true;
    };
    expect(await until('svc listening')).toBe(true);
    // Traffic that allocates (each answer is the whole OpenAPI document), in rounds with a quiet
    // spell after each: the RSS of start-up falls by ~15 MB in the first seconds, and the floor
    // with it, so one round may not lift RSS the 1 MB above that floor the collector waits for.
    const collected = until('"idle collection"');
    let seen = false;
    void collected.then((ok) => (seen = ok));
    for (let round = 0; round < 10 && !seen; round++) {
      for (let i = 0; i < 40; i++) await fetch(`http://127.0.0.1:${port}/api/v1/openapi.json`).then((r) => r.arrayBuffer());
      for (let waited = 0; waited < 4_000 && !seen; waited += 100) await Bun.sleep(100);
    }
    expect(await collected).toBe(true);
  } finally {
    proc.kill('SIGKILL');
    await proc.exited;
  }
}, 120_000);
