import { MAX_INPUT_PIXELS } from './input';
import { loadSharp } from './sharp';

/** Output formats; `jpg` is accepted as a name for jpeg. */
export const OUTPUT_FORMATS = ['jpeg', 'png', 'webp'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Media type of each output format. */
export const MEDIA_TYPE: Readonly<Record<OutputFormat, string>> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };

/** The format asked for (`jpg` read as jpeg), or the default for the resolution: PNG for 1K, JPEG for 2K and 4K. */
export function outputFormat(asked: string | undefined, resolution: string): OutputFormat {
  if (asked === 'jpg') return 'jpeg';
  if (asked === 'jpeg' || asked === 'png' || asked === 'webp') return asked;
  return resolution === '1K' ? 'png' : 'jpeg';
}

/** OpenAI's images answer (images.generate and images.edit): base64, or a data URL with response_format=url. */
export function openAIImagesAnswer(images: Uint8Array[], format: OutputFormat, responseFormat: 'b64_json' | 'url' | undefined) {
  const data = images.map((img) => {
    const b64 = Buffer.from(img).toString('base64');
    return responseFormat === 'url' ? { url: `data:${MEDIA_TYPE[format]};base64,${b64}` } : { b64_json: b64 };
  });
  return { created: Math.floor(Date.now() / 1000), data };
}

/** Blur strong enough that adult content is unrecognisable (sigma relative to the image size). */
function blurSigma(width: number, height: number): number {
  return Math.max(8, Math.round(Math.max(width, height) / 40));
}

/** Options of the final encoding of an image svc returns. */
export interface FinishOptions {
  format: OutputFormat;
  /** Blur it (safe mode and adult content). */
  blur: boolean;
  /** Resize to exactly this size when the upstream answered another one. */
  size?: { width: number; height: number };
}

/**
 * Re-encodes an upstream image as svc answers it: the requested format (engines often ignore
 * `output_format`), the requested size, blurred when safe mode hides adult content. Already
 * right and not blurred: passed through untouched.
 */
export async function finishImage(bytes: Uint8Array, o: FinishOptions): Promise<Uint8Array> {
  const sharp = await loadSharp();
  const image = sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS });
  const meta = await image.metadata();
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  const resize = o.size && (o.size.width !== width || o.size.height !== height);
  if (!o.blur && !resize && meta.format === o.format) return bytes;
  let out = image;
  if (resize && o.size) out = out.resize(o.size.width, o.size.height, { fit: 'cover' });
  if (o.blur) out = out.blur(blurSigma(o.size?.width ?? width, o.size?.height ?? height));
  return new Uint8Array(await out.toFormat(o.format).toBuffer());
}

/** `Content-Disposition` of an image answer: inline, with a file name a browser can save. */
export function contentDisposition(name: string, format: OutputFormat): string {
  return `inline; filename="${name}.${format === 'jpeg' ? 'jpg' : format}"`;
}
