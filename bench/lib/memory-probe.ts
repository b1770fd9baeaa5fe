/**
 * Preloaded into svc by `bench/load-rss.ts --probe` (`bun --preload`): on SIGUSR2 it prints one
 * `memprobe {...}` line with what the process holds, read from inside, before and after a full
 * collection. RSS alone cannot say whether memory after a load phase is live JS objects, garbage
 * not yet collected, external buffers (ArrayBuffers, PGlite's WASM memory) or pages the allocator
 * has not returned; this line splits it. svc itself never loads this file.
 */
import { heapStats } from 'bun:jsc';
import { readFileSync, writeFileSync } from 'node:fs';

const MB = 1024 * 1024;
const mb = (n: number) => Math.round((n / MB) * 10) / 10;

/**
 * Every WebAssembly memory the process creates (PGlite's, which Emscripten makes with
 * `new WebAssembly.Memory`): its byte length is what PGlite's heap has grown to, and it never shrinks.
 */
const memories: WeakRef<WebAssembly.Memory>[] = [];
WebAssembly.Memory = new Proxy(WebAssembly.Memory, {
  construct(target, args) {
    const memory = Reflect.construct(target, args) as WebAssembly.Memory;
    memories.push(new WeakRef(memory));
    return memory;
  },
});

/** The WASM memories' byte lengths, MB. */
function wasmMb(): number[] {
  return memories.map((r) => r.deref()).flatMap((m) => (m ? [mb(m.buffer.byteLength)] : []));
}

/**
 * Resident MB of the WASM memories' mappings: JSC maps a memory's bytes plus 4 KB to 4 MB
 * read-write (then its guard region, unmapped), so the mapping is found by that size.
 */
function wasmResidentMb(): number {
  const sizesKb = wasmMb().map((m) => Math.round(m * 1024));
  const blocks = readFileSync('/proc/self/smaps', 'utf8').split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/);
  let kb = 0;
  for (const b of blocks) {
    const size = Number(b.match(/^Size:\s+(\d+) kB/m)?.[1] ?? 0);
    if (sizesKb.some((s) => size > s && size <= s + 4096)) kb += Number(b.match(/^Rss:\s+(\d+) kB/m)?.[1] ?? 0);
  }
  return mb(kb * 1024);
}

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
    wasm: wasmMb(),
    wasmResident: wasmResidentMb(),
    top,
  };
}

let asked = 0;
process.on('SIGUSR2', () => {
  const before = snapshot();
  Bun.gc(true);
  const afterGc = snapshot();
  process.stderr.write(`memprobe ${++asked} ${JSON.stringify({ before, afterGc })}\n`);
  // MEMPROBE_SNAPSHOTS=DIR: also a V8-format heap snapshot per probe, to find what holds the live objects.
  const dir = process.env.MEMPROBE_SNAPSHOTS;
  if (dir) writeFileSync(`${dir}/heap-${process.pid}-${asked}.heapsnapshot`, Bun.generateHeapSnapshot('v8'));
});
