import type { Metadata } from 'sharp';
import { badRequest } from '../http/errors';
import { guardedFetch, UrlRefused } from '../net/guarded-fetch';
import { loadSharp, type SharpModule } from './sharp';

/** Smallest input image, in pixels (256 x 256). */
export const MIN_INPUT_PIXELS = 65_536;
/** Largest input image, in pixels (7680 x 4320); also sharp's `limitInputPixels`, so a bigger header stops the decoder. */
export const MAX_INPUT_PIXELS = 33_177_600;
/** Largest input file: under 25 MB. */
export const MAX_INPUT_BYTES = 25 * 1024 * 1024;
/** Formats accepted as input (sharp's names; `heif` covers HEIC and AVIF containers). SVG is never among them. */
export const INPUT_FORMATS: ReadonlySet<string> = new Set(['jpeg', 'png', 'webp', 'gif', 'avif', 'heif']);

/** Whether this libvips build decodes HEVC (HEIC photos); the prebuilt one does not (patent licensing). */
const decodesHevc = (sharp: SharpModule) =>
  (sharp.format.heif?.input as { fileSuffix?: string[] } | undefined)?.fileSuffix?.includes('.heic') === true;

/** A validated input image: its bytes and what its header says. */
export interface InputImage {
  bytes: Uint8Array;
  format: string;
  width: number;
  height: number;
}

/** How URLs are fetched: the SSRF guard's switch, the outbound fetch, and the time allowed. */
export interface ImageFetch {
  allowPrivate: boolean;
  fetch?: typeof fetch;
  timeoutMs: number;
  signal?: AbortSignal;
}

type Field = (string | number)[];
const fieldName = (path: Field) => path.join('.');
const refuse = (path: Field, message: string) => badRequest(`${fieldName(path)}: ${message}`, [{ path, message }]);

/** Decodes base64 (plain or a `data:image/...;base64,` URL); the size is checked on the text before anything is decoded. */
function fromBase64(text: string, path: Field): Uint8Array {
  const comma = text.startsWith('data:') ? text.indexOf(',') : -1;
  if (text.startsWith('data:') && (comma < 0 || !text.slice(0, comma).endsWith(';base64')))
    throw refuse(path, 'a data URL must be base64-encoded');
  const payload = comma >= 0 ? text.slice(comma + 1) : text;
  if (Math.floor((payload.length * 3) / 4) > MAX_INPUT_BYTES + 2) throw refuse(path, `the image must be under ${MAX_INPUT_BYTES} bytes`);
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(payload.replace(/\s+/g, '')))
    throw refuse(path, 'expected an http(s) URL or a base64-encoded image');
  return new Uint8Array(Buffer.from(payload, 'base64'));
}

/** Fetches an image URL through the SSRF guard, with the input size cap and a deadline. */
async function fromUrl(url: string, path: Field, o: ImageFetch): Promise<Uint8Array> {
  try {
    const doc = await guardedFetch(url, {
      allowPrivate: o.allowPrivate,
      fetch: o.fetch,
      timeoutMs: o.timeoutMs,
      maxBytes: MAX_INPUT_BYTES,
      signal: o.signal,
      headers: { accept: 'image/*' },
    });
    return doc.body;
  } catch (error) {
    if (error instanceof UrlRefused) throw refuse(path, `the image URL was not fetched: ${error.message}`);
    throw error;
  }
}

/** The raw bytes of an input given as a file upload, a base64 string or an http(s) URL. */
async function bytesOf(input: unknown, path: Field, o: ImageFetch): Promise<Uint8Array> {
  if (input instanceof Blob) {
    if (input.size >= MAX_INPUT_BYTES) throw refuse(path, `the image must be under ${MAX_INPUT_BYTES} bytes`);
    return new Uint8Array(await input.arrayBuffer());
  }
  if (typeof input !== 'string' || input.length === 0) throw refuse(path, 'expected an image file, a base64 string or an http(s) URL');
  if (/^https?:\/\//i.test(input)) return fromUrl(input, path, o);
  return fromBase64(input, path);
}

/**
 * Reads and checks one input image. The header alone (sharp `metadata()`, with
 * `limitInputPixels`) gives the format and pixel count, so an oversized or bomb image is
 * refused before any pixel is decoded; only an image within bounds is then decoded once,
 * shrinking as it goes, to catch a truncated or corrupt file.
 */
export async function readInputImage(input: unknown, path: Field, o: ImageFetch): Promise<InputImage> {
  const bytes = await bytesOf(input, path, o);
  if (bytes.byteLength >= MAX_INPUT_BYTES) throw refuse(path, `the image must be under ${MAX_INPUT_BYTES} bytes`);
  if (bytes.byteLength === 0) throw refuse(path, 'the image is empty');
  const sharp = await loadSharp();
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false, pages: 1 }).metadata();
  } catch {
    throw refuse(path, 'not a readable image (allowed formats: jpeg, png, webp, gif, avif, heic)');
  }
  const format = meta.format ?? 'unknown';
  if (format === 'svg') throw refuse(path, 'SVG images are not accepted (allowed formats: jpeg, png, webp, gif, avif, heic)');
  if (!INPUT_FORMATS.has(format)) throw refuse(path, `the format ${format} is not accepted (allowed: jpeg, png, webp, gif, avif, heic)`);
  // sharp's prebuilt libvips reads AVIF but has no HEVC decoder: say so rather than "corrupt".
  if (format === 'heif' && meta.compression === 'hevc' && !decodesHevc(sharp))
    throw refuse(path, 'HEIC (HEVC) images cannot be decoded by this server; send jpeg, png, webp, gif or avif');
  const width = meta.width ?? 0;
  const height = meta.pageHeight ?? meta.height ?? 0;
  const pixels = width * height;
  if (pixels < MIN_INPUT_PIXELS) throw refuse(path, `the image has ${pixels} pixels; at least ${MIN_INPUT_PIXELS} are required`);
  if (pixels > MAX_INPUT_PIXELS) throw refuse(path, `the image has ${pixels} pixels; at most ${MAX_INPUT_PIXELS} are allowed`);
  try {
    // Decodes every pixel once (a truncated file, or a PNG chunk with a bad CRC, fails here) into a
    // 64-pixel thumbnail, so memory stays small. `failOn: 'error'`: sharp's default ('warning')
    // upstream refused a bad CRC that 'truncated' let through, as a 502 for a request that never passes.
    await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', pages: 1 })
      .resize(64, 64, { fit: 'inside', fastShrinkOnLoad: false })
      .raw()
      .toBuffer();
  } catch {
    throw refuse(path, 'the image is truncated or corrupt');
  }
  return { bytes, format, width, height };
}
