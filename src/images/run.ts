import type { ExtraCharge } from '../billing/meter';
import { ServiceError } from '../http/errors';
import type { ModelCall } from '../pipeline/model-call';
import { upstreamUnavailable } from '../../providers/errors';
import type { JsonBody } from '../../providers/types';
import type { AdultClassifier } from './classifier';
import { finishImage, MEDIA_TYPE, type FinishOptions } from './output';
import { loadSharp } from './sharp';

/** One image of an upstream answer, and what the provider said of it. */
interface UpstreamImage {
  b64_json?: unknown;
  /** Adult content (svc's simulator and engines that report it). */
  nsfw?: unknown;
  /** Content the provider refuses to deliver. */
  content_violation?: unknown;
}

/** The finished images of a call and whether safe mode blurred any. */
export interface ImageResult {
  images: Uint8Array[];
  blurred: boolean;
}

/** What one image call sends and how its answer is finished. */
export interface ImageJob {
  path: 'generations' | 'edits';
  body: JsonBody | FormData;
  /** The line item reserved; settled for the images actually returned. */
  charge: ExtraCharge;
  /** A fixed line item charged with any image (multi-edit's additional input images). */
  surcharge?: ExtraCharge;
  finish: Omit<FinishOptions, 'blur'>;
  safeMode: boolean;
  /** The operator's adult-content classifier, consulted under safe mode for images the provider did not flag. */
  classify?: AdultClassifier;
}

/** 422 for content the provider refuses (the reference's ContentViolationError); nothing is charged. */
function contentViolation(): ServiceError {
  return new ServiceError(
    422,
    { error: 'The request was flagged as a content policy violation; nothing was charged', code: 'CONTENT_POLICY_VIOLATION' },
    { 'x-svc-is-content-violation': 'true', 'x-svc-is-blurred': 'false' },
  );
}

/** The upstream's images, checked: base64 present and decodable. */
function imagesOf(answer: JsonBody): UpstreamImage[] {
  const data = answer.data;
  if (!Array.isArray(data) || data.length === 0) throw upstreamUnavailable('the upstream answered without images');
  for (const item of data as UpstreamImage[])
    if (typeof item?.b64_json !== 'string' || item.b64_json.length === 0)
      throw upstreamUnavailable('the upstream answered an image without b64_json');
  return data as UpstreamImage[];
}

/** One upstream image in the requested format and size, blurred when safe mode finds adult content (provider flag, else the classifier). */
async function finishOne(item: UpstreamImage, job: ImageJob, requestId: string): Promise<{ bytes: Uint8Array; blurred: boolean }> {
  const raw = new Uint8Array(Buffer.from(item.b64_json as string, 'base64'));
  const flagged = job.safeMode && item.nsfw === true;
  // Outside the try: sharp failing to load is this server's fault (500), not an unreadable upstream image.
  await loadSharp();
  let bytes: Uint8Array;
  try {
    bytes = await finishImage(raw, { ...job.finish, blur: flagged });
  } catch {
    throw upstreamUnavailable('the upstream answered an image that could not be read');
  }
  if (flagged || !job.safeMode || !job.classify) return { bytes, blurred: flagged };
  if (!(await job.classify(bytes, MEDIA_TYPE[job.finish.format], requestId))) return { bytes, blurred: false };
  return { bytes: await finishImage(bytes, { ...job.finish, blur: true }), blurred: true };
}

/**
 * One metered image call: reserves the job's line item (402/429 before any upstream call),
 * routes it to an `images` replica, refuses a content violation (422), re-encodes each image
 * to the requested format and size and blurs adult content under safe mode, then charges the
 * images returned. Any failure releases the reservation: nothing is charged.
 */
export async function runImageCall(call: ModelCall, job: ImageJob): Promise<ImageResult> {
  const fixed = job.surcharge ? [job.surcharge] : [];
  await call.reserve({ promptTokens: 0, completionTokens: 0, extras: [job.charge, ...fixed] });
  let result: ImageResult;
  try {
    const routed = await call.route('images', (provider, options) => provider.images(job.path, job.body, options));
    routed.done();
    // An upstream that returns more images than asked gets only the ones asked for delivered (and charged).
    const items = imagesOf(routed.result).slice(0, job.charge.units);
    if (items.some((i) => i.content_violation === true)) throw contentViolation();
    const finished = await Promise.all(items.map((item) => finishOne(item, job, call.request.requestId)));
    result = { images: finished.map((f) => f.bytes), blurred: finished.some((f) => f.blurred) };
  } catch (error) {
    return call.fail(error);
  }
  call.headers['x-svc-is-blurred'] = String(result.blurred);
  call.headers['x-svc-is-content-violation'] = 'false';
  if (call.model.simulated) call.headers['x-svc-simulated'] = 'true';
  const executionMs = Math.round(performance.now() - call.request.startedAt);
  const settled = await call.settle({
    promptTokens: 0,
    completionTokens: 0,
    executionMs,
    extras: [{ ...job.charge, units: result.images.length }, ...fixed],
  });
  call.chargeBeforeHeaders(settled);
  return result;
}
