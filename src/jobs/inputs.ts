import { fileTypeOf } from '../http/file-type';
import { invalidField, invalidFields, type FieldProblem } from '../http/errors';
import { guardedFetch, UrlRefused } from '../net/guarded-fetch';
import type { VideoModelSpec } from '../models/media-spec';
import type { QueueVideoRequest } from './schema';

/** The media family a URL field takes. */
type Family = 'image' | 'video' | 'audio';
/** The model input (`video.inputs`) a field needs. */
type Input = VideoModelSpec['inputs'][number];

/** One URL field of a video request: where it is, what it holds, and which model input it needs. */
interface UrlField {
  path: (string | number)[];
  value: string;
  family: Family;
  input: Input;
}

/** How input media is fetched: the SSRF guard's switch, the size and time limits, the injected fetch. */
export interface InputFetch {
  allowPrivate: boolean;
  maxBytes: number;
  timeoutMs: number;
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/** Every URL field of a video request, with its family and the model input it needs. */
export function urlFields(req: QueueVideoRequest): UrlField[] {
  const out: UrlField[] = [];
  const one = (path: (string | number)[], value: string | undefined, family: Family, input: Input) => {
    if (value !== undefined) out.push({ path, value, family, input });
  };
  const many = (name: string, values: string[] | undefined, family: Family, input: Input) =>
    values?.forEach((v, i) => one([name, i], v, family, input));
  one(['image_url'], req.image_url, 'image', 'image');
  one(['end_image_url'], req.end_image_url, 'image', 'end_image');
  one(['audio_url'], req.audio_url, 'audio', 'audio');
  one(['video_url'], req.video_url, 'video', 'video');
  many('reference_image_urls', req.reference_image_urls, 'image', 'reference_images');
  many('reference_video_urls', req.reference_video_urls, 'video', 'reference_videos');
  many('reference_audio_urls', req.reference_audio_urls, 'audio', 'reference_audios');
  many('scene_image_urls', req.scene_image_urls, 'image', 'scenes');
  req.elements?.forEach((e, i) => {
    one(['elements', i, 'frontal_image_url'], e.frontal_image_url, 'image', 'elements');
    e.reference_image_urls?.forEach((v, j) => one(['elements', i, 'reference_image_urls', j], v, 'image', 'elements'));
    one(['elements', i, 'video_url'], e.video_url, 'video', 'elements');
  });
  return out;
}

/** Refuses the URL fields the model takes no input for (400 naming each). */
export function checkInputsOffered(fields: UrlField[], spec: VideoModelSpec, modelId: string): void {
  const problems: FieldProblem[] = fields
    .filter((f) => !spec.inputs.includes(f.input))
    .map((f) => ({ path: f.path, message: `is not supported by model "${modelId}"` }));
  if (problems.length > 0) throw invalidFields(problems);
}

/** The bytes of a data URL, bounded before decoding. */
function fromDataUrl(f: UrlField, maxBytes: number): Uint8Array {
  const comma = f.value.indexOf(',');
  const head = comma < 0 ? '' : f.value.slice(5, comma);
  if (comma < 0 || !head.endsWith(';base64')) throw invalidField(f.path, 'a data URL must be base64-encoded');
  const payload = f.value.slice(comma + 1);
  if (Math.floor((payload.length * 3) / 4) > maxBytes) throw invalidField(f.path, `must be at most ${maxBytes} bytes`);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(payload)) throw invalidField(f.path, 'is not valid base64');
  return new Uint8Array(Buffer.from(payload, 'base64'));
}

/** The bytes of an http(s) URL, fetched through the SSRF guard with the size and time limits. */
async function fromUrl(f: UrlField, o: InputFetch): Promise<Uint8Array> {
  try {
    const doc = await guardedFetch(f.value, {
      allowPrivate: o.allowPrivate,
      fetch: o.fetch,
      timeoutMs: o.timeoutMs,
      maxBytes: o.maxBytes,
      signal: o.signal,
      headers: { accept: `${f.family}/*` },
    });
    return doc.body;
  } catch (error) {
    if (error instanceof UrlRefused) throw invalidField(f.path, `was not fetched: ${error.message}`);
    throw error;
  }
}

/**
 * One URL field as a data URL of checked media: fetched through the SSRF guard (http/https)
 * or decoded (data:), bounded in size first, and its content sniffed (file-type) to be of
 * the field's family, so the upstream never fetches a client's URL itself.
 */
async function resolveOne(f: UrlField, o: InputFetch): Promise<string> {
  let bytes: Uint8Array;
  if (f.value.startsWith('data:')) bytes = fromDataUrl(f, o.maxBytes);
  else if (/^https?:\/\//i.test(f.value)) bytes = await fromUrl(f, o);
  else throw invalidField(f.path, 'must be an http(s) URL or a data URL');
  const type = await fileTypeOf(bytes);
  if (!type || !type.mime.startsWith(`${f.family}/`))
    throw invalidField(
      f.path,
      `must be ${f.family === 'image' ? 'an image' : `a ${f.family} file`} (got ${type?.mime ?? 'unrecognised content'})`,
    );
  return `data:${type.mime};base64,${Buffer.from(bytes).toString('base64')}`;
}

/** The request with every URL field replaced by the data URL of its checked media. */
export async function resolveInputs(req: QueueVideoRequest, fields: UrlField[], o: InputFetch): Promise<QueueVideoRequest> {
  if (fields.length === 0) return req;
  const resolved = await Promise.all(fields.map((f) => resolveOne(f, o)));
  const out = structuredClone(req) as Record<string, unknown>;
  fields.forEach((f, i) => {
    let node = out as Record<string | number, unknown>;
    for (const key of f.path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
    node[f.path[f.path.length - 1]!] = resolved[i];
  });
  return out as QueueVideoRequest;
}
