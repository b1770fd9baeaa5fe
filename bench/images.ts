/**
 * `bun bench/images.ts`: what validating an input image costs (src/images/input.ts
 * `readInputImage`): peak RSS and time for a 25 MB upload of real pixels, a 5000x5000 PNG
 * that compresses to a few KB, a 10,000 x 10,000 decompression bomb, and a file at the 25 MB
 * limit. Each case runs in its own process, so its peak RSS is its own: the figure printed
 * is the peak during validation less the process's RSS just before it (sharp loaded, input
 * in memory).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { MAX_INPUT_BYTES, readInputImage } from '../src/images/input';

type Case = 'upload-25mb' | 'png-5000' | 'bomb-10000' | 'at-limit' | 'naive-5000';
/** `naive-5000`: for comparison, what a plain full decode of the 5000x5000 PNG to raw pixels costs (what validation avoids). */
const CASES: Case[] = ['upload-25mb', 'png-5000', 'bomb-10000', 'at-limit', 'naive-5000'];

/** The input of a case, built before measuring. */
async function inputOf(c: Case): Promise<Buffer> {
  if (c === 'upload-25mb') {
    // Noise does not compress: 2800 x 2800 RGB is a ~23.6 MB PNG, just under the limit.
    const noise = Buffer.alloc(2800 * 2800 * 3);
    let x = 2463534242;
    for (let i = 0; i < noise.length; i++) {
      // xorshift32: noise no compressor can shrink.
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      noise[i] = x & 0xff;
    }
    return sharp(noise, { raw: { width: 2800, height: 2800, channels: 3 } })
      .png({ compressionLevel: 1 })
      .toBuffer();
  }
  const side = c === 'bomb-10000' ? 10_000 : 5000;
  const small = await sharp({ create: { width: side, height: side, channels: 3, background: { r: 0, g: 0, b: 0 } } })
    .toColourspace('b-w')
    .png({ compressionLevel: 9 })
    .toBuffer();
  return c === 'at-limit' ? Buffer.concat([small, Buffer.alloc(MAX_INPUT_BYTES - small.length)]) : small;
}

/** Runs one case in this process on the input in `file` and prints one JSON line. */
async function runCase(c: Case, file: string): Promise<void> {
  const input = readFileSync(file);
  const blob = new Blob([new Uint8Array(input)]);
  await sharp({ create: { width: 8, height: 8, channels: 3, background: 'red' } })
    .png()
    .toBuffer(); // libvips loaded before measuring
  Bun.gc(true);
  const rssBefore = process.memoryUsage.rss();
  const peakBefore = process.resourceUsage().maxRSS * 1024;
  // Sampled as well as the kernel's high-water mark: libvips allocates on its worker threads.
  let sampled = rssBefore;
  const sampler = setInterval(() => {
    sampled = Math.max(sampled, process.memoryUsage.rss());
  }, 1);
  const started = performance.now();
  let outcome: string;
  try {
    if (c === 'naive-5000') {
      const raw = await sharp(input, { limitInputPixels: false }).raw().toBuffer();
      outcome = `decoded ${raw.length} bytes of pixels`;
    } else {
      const image = await readInputImage(blob, ['image'], { allowPrivate: false, timeoutMs: 1000 });
      outcome = `accepted ${image.format} ${image.width}x${image.height}`;
    }
  } catch (error) {
    outcome = `refused: ${(error as Error).message}`;
  }
  const ms = performance.now() - started;
  clearInterval(sampler);
  const peak = Math.max(process.resourceUsage().maxRSS * 1024, sampled, process.memoryUsage.rss());
  console.log(
    JSON.stringify({
      case: c,
      inputBytes: input.length,
      ms: Math.round(ms * 10) / 10,
      rssBeforeMB: Math.round(rssBefore / 1e6),
      peakGrowthMB: Math.round((peak - Math.max(peakBefore, rssBefore)) / 1e6),
      outcome,
    }),
  );
}

const only = Bun.argv.indexOf('--case');
if (only >= 0) await runCase(Bun.argv[only + 1] as Case, Bun.argv[only + 2] as string);
else {
  console.log('image input validation: one process per case; peakGrowthMB is the peak RSS during validation over the RSS before it');
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-images-'));
  for (const c of CASES) {
    const file = join(dir, `${c}.img`);
    writeFileSync(file, await inputOf(c));
    const child = Bun.spawnSync([process.execPath, import.meta.path, '--case', c, file], { stdout: 'pipe', stderr: 'inherit' });
    const line = child.stdout.toString().trim();
    const r = JSON.parse(line) as Record<string, unknown>;
    console.log(
      `${String(r.case).padEnd(12)} ${String(r.inputBytes).padStart(9)} B  ${String(r.ms).padStart(7)} ms  ` +
        `rss before ${r.rssBeforeMB} MB, peak growth ${r.peakGrowthMB} MB  ${r.outcome}`,
    );
  }
  rmSync(dir, { recursive: true });
}
