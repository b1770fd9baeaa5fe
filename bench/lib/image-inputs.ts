/**
 * The image inputs of the validation measurements (bench/images.ts and the run's images
 * phase), and the runner of one validation case in its own process, so its peak RSS is its own.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { MAX_INPUT_BYTES } from '../../src/images/input';

/** The cases: `naive-5000` is, for comparison, a plain full decode of the 5000x5000 PNG (what validation avoids). */
export type ImageCase = 'upload-25mb' | 'png-5000' | 'bomb-10000' | 'at-limit' | 'naive-5000';
export const IMAGE_CASES: ImageCase[] = ['upload-25mb', 'png-5000', 'bomb-10000', 'at-limit', 'naive-5000'];

/** What validating one input cost, as bench/images.ts prints it. */
export interface ValidationResult {
  case: ImageCase;
  inputBytes: number;
  ms: number;
  rssBeforeMB: number;
  /** Peak RSS during validation over the RSS before it. */
  peakGrowthMB: number;
  outcome: string;
}

/** The input of a case. `upload-25mb` is the largest accepted upload of real pixels: noise, which no compressor shrinks. */
export async function imageInput(c: ImageCase): Promise<Buffer> {
  if (c === 'upload-25mb') {
    // 2800 x 2800 RGB noise is a ~24.8 MB PNG, just under the 25 MiB limit.
    const noise = Buffer.alloc(2800 * 2800 * 3);
    let x = 2463534242;
    for (let i = 0; i < noise.length; i++) {
      // xorshift32
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

/** Validates `input` as case `c` in a child process (`bun bench/images.ts --case`); `dir` holds the input file. */
export function validateInChild(c: ImageCase, input: Buffer, dir: string): ValidationResult {
  const file = join(dir, `${c}.img`);
  writeFileSync(file, input);
  const child = Bun.spawnSync([process.execPath, join(import.meta.dir, '..', 'images.ts'), '--case', c, file], {
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const line = child.stdout.toString().trim().split('\n').pop() ?? '';
  if (!line.startsWith('{')) throw new Error(`image validation ${c}: ${child.stderr.toString().trim().split('\n').pop()}`);
  return JSON.parse(line) as ValidationResult;
}
