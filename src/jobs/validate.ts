import { badRequest, invalidFields, ServiceError, type FieldProblem } from '../http/errors';
import type { ModelEntry } from '../models/catalog';
import type { MusicModelSpec, VideoModelSpec } from '../models/media-spec';
import type { VideoPriceInput } from './pricing';
import type { QueueAudioRequest, QueueVideoRequest } from './schema';

/** The reference's default prompt limit for video models that set none. */
const DEFAULT_VIDEO_PROMPT_LIMIT = 2500;

/** The version of the consent text below; a client that shows it records which one it accepted. */
const SEEDANCE_CONSENT_VERSION = '2026-07-01';
const SEEDANCE_POLICY =
  'Media that shows a real person may only be submitted with their consent. By confirming you accept the terms of use and the ' +
  'privacy policy for face-bearing media, confirm that you have the legal right to use this media, and acknowledge that it may ' +
  'be screened before it is sent to the provider.';

/** A model's video options; a video model without them is a catalog error, shown as a 400 naming the model. */
export function videoSpecOf(model: ModelEntry): VideoModelSpec {
  const spec = model.config.video;
  if (!spec) throw badRequest(`model: "${model.id}" has no video options configured`, [{ path: ['model'], message: 'No video options' }]);
  return spec;
}

/** A model's asynchronous-audio options. */
export function musicSpecOf(model: ModelEntry): MusicModelSpec {
  const spec = model.config.music;
  if (!spec)
    throw badRequest(`model: "${model.id}" has no audio job options configured`, [{ path: ['model'], message: 'No audio options' }]);
  return spec;
}

const oneOf = (values: readonly (string | number)[]) => `must be one of: ${values.join(', ')}`;

/** The price inputs the model does not offer (duration, resolution, aspect ratio, upscale factor), each a 400 naming its field. */
export function checkVideoOptions(model: ModelEntry, spec: VideoModelSpec, req: VideoPriceInput): void {
  const problems: FieldProblem[] = [];
  const forModel = ` for model "${model.id}"`;
  if (!(spec.durations as string[]).includes(req.duration))
    problems.push({ path: ['duration'], message: oneOf(spec.durations) + forModel });
  if (req.resolution !== undefined && !(spec.resolutions as string[]).includes(req.resolution))
    problems.push({
      path: ['resolution'],
      message: spec.resolutions.length ? oneOf(spec.resolutions) + forModel : `is not supported${forModel}`,
    });
  if (req.aspect_ratio !== undefined && !(spec.aspectRatios as string[]).includes(req.aspect_ratio))
    problems.push({
      path: ['aspect_ratio'],
      message: spec.aspectRatios.length ? oneOf(spec.aspectRatios) + forModel : `is not supported${forModel}`,
    });
  if (req.upscale_factor !== undefined && !(spec.upscaleFactors as number[] | undefined)?.includes(req.upscale_factor))
    problems.push({
      path: ['upscale_factor'],
      message: spec.upscaleFactors ? oneOf(spec.upscaleFactors) + forModel : `is only for upscale models`,
    });
  if (problems.length > 0) throw invalidFields(problems);
}

/** The prompts within the model's limit (its promptCharacterLimit, else the reference's 2,500). */
export function checkVideoPrompt(model: ModelEntry, req: QueueVideoRequest): void {
  const limit = model.config.promptCharacterLimit ?? DEFAULT_VIDEO_PROMPT_LIMIT;
  const problems: FieldProblem[] = [];
  if (req.prompt.length > limit)
    problems.push({ path: ['prompt'], message: `must be at most ${limit} characters for model "${model.id}"` });
  if ((req.negative_prompt?.length ?? 0) > limit)
    problems.push({ path: ['negative_prompt'], message: `must be at most ${limit} characters for model "${model.id}"` });
  if (problems.length > 0) throw invalidFields(problems);
}

/** The face-media roles a request submits (the reference's `face_media_roles`). */
function faceMediaRoles(req: QueueVideoRequest): string[] {
  const roles: string[] = [];
  if (req.image_url) roles.push('image');
  if (req.end_image_url) roles.push('end_image');
  if (req.reference_image_urls?.length) roles.push('reference_image');
  if (req.video_url) roles.push('video');
  if (req.reference_video_urls?.length) roles.push('reference_video');
  return roles;
}

/**
 * The seedance consent: a model that asks for it and a request with media that may show a
 * face and no `consents.seedance` get the reference's 409 `needs_consent`, with the policy to show.
 */
export function checkConsent(spec: VideoModelSpec, req: QueueVideoRequest, docsUrl: string): void {
  if (spec.consent !== 'seedance' || req.consents?.seedance) return;
  const roles = faceMediaRoles(req);
  if (roles.length === 0) return;
  throw new ServiceError(409, {
    error: {
      code: 'needs_consent',
      message: 'Seedance consent is required before media that may show a face can be queued: resend with consents.seedance',
    },
    consent_flow: 'seedance',
    face_media_roles: roles,
    consent: { consent_version: SEEDANCE_CONSENT_VERSION, policy_text: SEEDANCE_POLICY },
    docs_url: docsUrl,
  } as never);
}

/** The seconds an audio request asks for (an integer or a digit string), or undefined. */
export const audioSeconds = (value: number | string | undefined) => (value === undefined ? undefined : Number(value));

/** An audio duration within the model's range (400 naming duration_seconds). */
export function checkAudioSeconds(model: ModelEntry, spec: MusicModelSpec, seconds: number | undefined): void {
  if (seconds === undefined) return;
  if (seconds < spec.minSeconds || seconds > spec.maxSeconds)
    throw invalidFields([
      { path: ['duration_seconds'], message: `must be between ${spec.minSeconds} and ${spec.maxSeconds} for model "${model.id}"` },
    ]);
}

/** The options of an audio job the model offers, and the prompt within its limits (400s naming each field). */
export function checkAudioRequest(model: ModelEntry, spec: MusicModelSpec, req: QueueAudioRequest): void {
  checkAudioSeconds(model, spec, audioSeconds(req.duration_seconds));
  const problems: FieldProblem[] = [];
  const unsupported = (field: string) => problems.push({ path: [field], message: `is not supported by model "${model.id}"` });
  const limit = model.config.promptCharacterLimit;
  if (req.prompt.length < spec.minPromptLength)
    problems.push({ path: ['prompt'], message: `must be at least ${spec.minPromptLength} characters` });
  if (limit !== undefined && req.prompt.length > limit)
    problems.push({ path: ['prompt'], message: `must be at most ${limit} characters for model "${model.id}"` });
  if (req.lyrics_prompt !== undefined && !spec.supportsLyrics) unsupported('lyrics_prompt');
  if (req.force_instrumental !== undefined && !spec.supportsForceInstrumental) unsupported('force_instrumental');
  if (req.lyrics_optimizer !== undefined && !spec.supportsLyricsOptimizer) unsupported('lyrics_optimizer');
  if (req.lyrics_optimizer && req.lyrics_prompt)
    problems.push({ path: ['lyrics_prompt'], message: 'must be empty when lyrics_optimizer is true' });
  if (req.language_code !== undefined && !spec.supportsLanguageCode) unsupported('language_code');
  if (req.speed !== undefined && !spec.supportsSpeed) unsupported('speed');
  if (req.voice !== undefined && !spec.voices.includes(req.voice))
    problems.push({ path: ['voice'], message: spec.voices.length ? oneOf(spec.voices) : `is not supported by model "${model.id}"` });
  if (problems.length > 0) throw invalidFields(problems);
}
