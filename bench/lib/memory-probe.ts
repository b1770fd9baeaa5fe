/**
 * Preloaded into svc by `bench/load-rss.ts --probe` (`bun --preload`): on SIGUSR2 it prints one
 * `memprobe {...}` line with what the process holds, read from inside, before and after a full
 * collection. RSS alone cannot say whether memory after a load phase is live JS objects, garbage
 * not yet collected, external buffers (ArrayBuffers, PGlite's WASM memory) or pages the allocator
 * has not returned; this line splits it. svc itself never loads this file.
 */
import { heapStats } from 'bun:jsc';

const MB = 1024 * 1024;
const mb = (n: number) => Math.round((n / MB) * 10) / 10;

function snapshot() {
  const m = process.memoryUsage();
  const h = heapStats();
  const top = Object.entries(h.objectTypeCounts)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([k, v]) => `${k}:${v}`)
    .join(',');
  return {
    rss: mb(m.rss),
    heapSize: mb(h.heapSize),
    heapCapacity: mb(h.heapCapacity),
    extra: mb(h.extraMemorySize),
    external: mb(m.external),
    arrayBuffers: mb(m.arrayBuffers),
    objects: h.objectCount,
    top,
  };
}

let asked = 0;
process.on('SIGUSR2', () => {
  const before = snapshot();
  Bun.gc(true);
  const afterGc = snapshot();
  process.stderr.write(`memprobe ${++asked} ${JSON.stringify({ before, afterGc })}\n`);
});
