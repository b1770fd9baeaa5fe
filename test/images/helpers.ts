import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { ledgerLines } from '../../src/db/schema';
import { fixtureProvider } from '../chat/helpers';
import { startTestApp, type TestApp } from '../helpers/app';
import type { TestBackend } from '../helpers/backends';
import { startImagesUpstream, type ImagesUpstream } from '../fixtures/images-upstream';

/** A solid PNG of `width` x `height` (small on disk, real pixels). */
export async function png(width: number, height: number, colour = { r: 30, g: 120, b: 200 }): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour } })
    .png()
    .toBuffer();
}

/** A huge black greyscale PNG at maximum compression: millions of pixels in a few KB (a decompression bomb when large enough). */
export async function compressedPng(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 0, g: 0, b: 0 } } })
    .toColourspace('b-w')
    .png({ compressionLevel: 9 })
    .toBuffer();
}

/** Format, width and height of image bytes, read from the header. */
export async function describe(
  bytes: ArrayBuffer | Uint8Array | Buffer,
): Promise<{ format?: string; width?: number; height?: number; hasAlpha?: boolean }> {
  const m = await sharp(Buffer.from(bytes as ArrayBuffer)).metadata();
  return { format: m.format, width: m.width, height: m.height, hasAlpha: m.hasAlpha };
}

/** An SVG (refused as input whatever its size). */
export const SVG = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="1024" height="1024"><rect width="1024" height="1024" fill="red"/></svg>',
);

/** A PNG cut in half: its header is whole (256 x 256), its pixel data is not. */
export async function truncatedPng(): Promise<Buffer> {
  const noisy = Buffer.alloc(512 * 512 * 3);
  for (let i = 0; i < noisy.length; i++) noisy[i] = (i * 2654435761) >>> 24;
  const full = await sharp(noisy, { raw: { width: 512, height: 512, channels: 3 } })
    .png()
    .toBuffer();
  return full.subarray(0, Math.floor(full.length / 2));
}

/** A multipart body of `fields` (Buffers become files named after their field). */
export function form(fields: Record<string, string | Buffer | Buffer[]>): FormData {
  const f = new FormData();
  for (const [key, value] of Object.entries(fields)) {
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) {
      if (typeof v === 'string') f.append(key, v);
      else f.append(key, new Blob([v as Uint8Array<ArrayBuffer>]), `${key}.png`);
    }
  }
  return f;
}

/** A test app whose `img` provider is a fixture images upstream, next to the simulator (`sim`), serving `models`. */
export async function startImagesApp(backend: TestBackend, models: unknown[]): Promise<{ t: TestApp; up: ImagesUpstream }> {
  const up = startImagesUpstream();
  const t = await startTestApp({
    backend,
    config: { providers: [fixtureProvider('img', up.url, 300), { id: 'sim', kind: 'simulator', options: {} }], models },
  });
  return { t, up };
}

/** The ledger rows of the request that answered `res` (by its CF-RAY), once the ledger is written. */
export async function ledgerOf(t: TestApp, res: Response) {
  await t.deps.meter.flush();
  return t.deps.storage.db
    .select()
    .from(ledgerLines)
    .where(eq(ledgerLines.requestId, res.headers.get('cf-ray') as string));
}
