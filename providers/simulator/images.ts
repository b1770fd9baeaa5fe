import type { Sharp } from 'sharp';
import { loadSharp } from '../../src/images/sharp';
import type { JsonBody, ProviderCalls } from '../types';

/** Prompts containing this word come back flagged as adult content (so safe mode and its blur can be tried). */
const ADULT_WORD = /\bnsfw\b/i;
/** Prompts containing this word are refused as a content violation (so the 422 path can be tried). */
const VIOLATION_WORD = /\bforbidden\b/i;

const hash32 = (text: string) => Number(Bun.hash.wyhash(text) & 0xffffffffn);
const escapeXml = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
const hue = (seed: number) => seed % 360;
const formatOf = (v: unknown) => (v === 'jpeg' || v === 'webp' ? v : 'png');

/** A label drawn on every simulated image, so nobody mistakes it for model output. */
function labelSvg(width: number, height: number, title: string, line: string): Buffer {
  const size = Math.max(12, Math.round(Math.min(width, height) / 16));
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
      `<rect x="0" y="${height - size * 3}" width="${width}" height="${size * 3}" fill="black" fill-opacity="0.55"/>` +
      `<text x="${size / 2}" y="${height - size * 1.7}" font-family="sans-serif" font-size="${size}" fill="white">${escapeXml(title)}</text>` +
      `<text x="${size / 2}" y="${height - size * 0.5}" font-family="sans-serif" font-size="${Math.round(size * 0.7)}" fill="white">${escapeXml(line.slice(0, 80))}</text>` +
      `</svg>`,
  );
}

/** A deterministic picture for a prompt and seed: a two-colour gradient, a disc, and the SIMULATED label. */
async function picture(prompt: string, seed: number, width: number, height: number, format: 'png' | 'jpeg' | 'webp'): Promise<Buffer> {
  const sharp = await loadSharp();
  const h = hash32(`${prompt}\u0000${seed}`);
  const a = hue(h);
  const b = (a + 120 + ((h >>> 9) % 120)) % 360;
  const cx = 20 + ((h >>> 3) % 60);
  const cy = 20 + ((h >>> 11) % 60);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${a},70%,55%)"/><stop offset="1" stop-color="hsl(${b},70%,35%)"/></linearGradient></defs>` +
    `<rect width="100%" height="100%" fill="url(#g)"/>` +
    `<circle cx="${cx}%" cy="${cy}%" r="${Math.round(Math.min(width, height) / 5)}" fill="hsl(${(a + 180) % 360},80%,70%)"/>` +
    `</svg>`;
  return sharp(Buffer.from(svg))
    .composite([{ input: labelSvg(width, height, 'SIMULATED IMAGE', prompt) }])
    .toFormat(format)
    .toBuffer();
}

/** `size` "WxH" of a request, else 1024 x 1024. */
function sizeOf(size: unknown): { width: number; height: number } {
  const m = /^(\d+)x(\d+)$/.exec(String(size ?? ''));
  return m ? { width: Number(m[1]), height: Number(m[2]) } : { width: 1024, height: 1024 };
}

const flags = (prompt: string) => ({ nsfw: ADULT_WORD.test(prompt), content_violation: VIOLATION_WORD.test(prompt) });

/** `/images/generations`: `n` deterministic pictures of the requested size and format. */
async function generate(body: JsonBody): Promise<JsonBody> {
  const prompt = String(body.prompt ?? '');
  const { width, height } = sizeOf(body.size);
  const n = Math.max(1, Number(body.n ?? 1));
  const seed = Number(body.seed ?? 0);
  const format = formatOf(body.output_format);
  const data = await Promise.all(
    Array.from({ length: n }, async (_, i) => ({
      b64_json: (await picture(prompt, seed + i, width, height, format)).toString('base64'),
      ...flags(prompt),
    })),
  );
  return { created: Math.floor(Date.now() / 1000), data };
}

/** An edit: the first image cropped to the size, hue-rotated by the prompt, the others inset, and labelled. */
async function edit(images: Buffer[], prompt: string, width: number, height: number): Promise<Sharp> {
  const sharp = await loadSharp();
  const shift = hue(hash32(prompt));
  const base = await sharp(images[0]).resize(width, height, { fit: 'cover' }).modulate({ hue: shift, saturation: 1.3 }).toBuffer();
  const inset = Math.round(Math.min(width, height) / 4);
  const others = await Promise.all(images.slice(1).map((img) => sharp(img).resize(inset, inset, { fit: 'cover' }).toBuffer()));
  return sharp(base).composite([
    ...others.map((input, i) => ({ input, top: 8, left: 8 + i * (inset + 8) })),
    { input: labelSvg(width, height, 'SIMULATED EDIT', prompt) },
  ]);
}

/** Background removal: pixels close to the top-left corner's colour become transparent. */
async function removeBackground(image: Buffer): Promise<Sharp> {
  const sharp = await loadSharp();
  const { data, info } = await sharp(image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const [r0, g0, b0] = [data[0] ?? 0, data[1] ?? 0, data[2] ?? 0];
  for (let i = 0; i < data.length; i += 4) {
    const d = Math.abs((data[i] ?? 0) - r0) + Math.abs((data[i + 1] ?? 0) - g0) + Math.abs((data[i + 2] ?? 0) - b0);
    if (d < 48) data[i + 3] = 0;
  }
  return sharp(data, { raw: { width: info.width, height: info.height, channels: 4 } });
}

/** `/images/edits` (multipart): edit and multi-edit, and svc's `operation` of upscale and background-remove. */
async function edits(form: FormData): Promise<JsonBody> {
  const sharp = await loadSharp();
  const files = [...form.getAll('image'), ...form.getAll('image[]')].filter((v): v is File => v instanceof Blob);
  const images = await Promise.all(files.map(async (f) => Buffer.from(await f.arrayBuffer())));
  if (images.length === 0) throw new Error('simulator: no image in the edit request');
  const prompt = String(form.get('prompt') ?? '');
  const format = formatOf(form.get('output_format'));
  const operation = String(form.get('operation') ?? 'edit');
  let out: Sharp;
  if (operation === 'upscale') {
    const scale = Number(form.get('scale') ?? 2);
    const meta = await sharp(images[0]).metadata();
    out = sharp(images[0]).resize(Math.round((meta.width ?? 0) * scale), Math.round((meta.height ?? 0) * scale), { kernel: 'lanczos3' });
  } else if (operation === 'background-remove') out = await removeBackground(images[0] as Buffer);
  else {
    const { width, height } = sizeOf(form.get('size'));
    out = await edit(images, prompt, width, height);
  }
  const bytes = await out.toFormat(format).toBuffer();
  return { created: Math.floor(Date.now() / 1000), data: [{ b64_json: bytes.toString('base64'), ...flags(prompt) }] };
}

/**
 * The simulator's images: real pictures made and transformed with sharp (a gradient per
 * prompt and seed, edits that visibly change the input, a real resize and a real alpha
 * mask), every one labelled SIMULATED, so demos and tests need no upstream.
 */
export function simulatedImages(): ProviderCalls['images'] {
  return async function images(path, body) {
    if (path === 'generations' && !(body instanceof FormData)) return generate(body);
    if (path === 'edits' && body instanceof FormData) return edits(body);
    throw new Error(`simulator: /images/${path} is not simulated`);
  };
}
