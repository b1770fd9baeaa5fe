/**
 * `bun bench/images.ts`: what validating an input image costs (src/images/input.ts
 * `readInputImage`): peak RSS and time for a 25 MB upload of real pixels, a 5000x5000 PNG
 * that compresses to a few KB, a 10,000 x 10,000 decompression bomb, and a file at the 25 MB
 * limit. Each case runs in its own process, so its peak RSS is its own: the figure printed
 * is the peak during validation less the process's RSS just before it (sharp loaded, input
 * in memory). `bun run bench` runs the `upload-25mb` case the same way.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { readInputImage } from '../src/images/input';
import { IMAGE_CASES, imageInput, validateInChild, type ImageCase } from './lib/image-inputs';

/** Runs one case in this process on the input in `file` and prints one JSON line. */
async function runCase(c: ImageCase, file: string): Promise<void> {
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
if (only >= 0) await runCase(Bun.argv[only + 1] as ImageCase, Bun.argv[only + 2] as string);
else {
  console.log('image input validation: one process per case; peakGrowthMB is the peak RSS during validation over the RSS before it');
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-images-'));
  for (const c of IMAGE_CASES) {
    const r = validateInChild(c, await imageInput(c), dir);
    console.log(
      `${String(r.case).padEnd(12)} ${String(r.inputBytes).padStart(9)} B  ${String(r.ms).padStart(7)} ms  ` +
        `rss before ${r.rssBeforeMB} MB, peak growth ${r.peakGrowthMB} MB  ${r.outcome}`,
    );
  }
  rmSync(dir, { recursive: true });
}
