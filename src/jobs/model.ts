import type { ModelEntry } from '../models/catalog';

/** The reference's `model_type` of a video model: what it takes as input. */
function videoModelType(inputs: readonly string[]): 'text-to-video' | 'image-to-video' | 'video' {
  if (inputs.length === 0) return 'text-to-video';
  return inputs.some((i) => i.includes('video')) ? 'video' : 'image-to-video';
}

/**
 * What GET /models publishes of a video model under `model_spec.constraints`: the options a
 * request may name (the queue and quote routes refuse any other), in the reference's "Video
 * Model Constraints" shape, plus svc's inputs, upscale factors and consent flow. Null for other models.
 */
export function presentVideoConstraints(m: ModelEntry): Record<string, unknown> | null {
  const video = m.config.video;
  if (!video) return null;
  return {
    aspect_ratios: video.aspectRatios,
    resolutions: video.resolutions,
    durations: video.durations,
    model_type: videoModelType(video.inputs),
    audio: video.audio,
    audio_configurable: video.audio,
    prompt_character_limit: m.config.promptCharacterLimit ?? 2500,
    ...(video.defaultResolution ? { default_resolution: video.defaultResolution } : {}),
    ...(video.defaultAspectRatio ? { default_aspect_ratio: video.defaultAspectRatio } : {}),
    ...(video.upscaleFactors ? { upscale_factors: video.upscaleFactors } : {}),
    inputs: video.inputs,
    ...(video.consent ? { consent_flow: video.consent } : {}),
  };
}

const FORMAT_NAMES = { 'audio/mpeg': 'mp3', 'audio/wav': 'wav', 'audio/flac': 'flac' } as const;

/**
 * What GET /models publishes of a music model at the top of `model_spec`, under the
 * reference's names (`supports_lyrics`, `min_duration`, `prompt_character_limit`, ...), which
 * its audio routes cite. Null for other models.
 */
export function presentMusicSpec(m: ModelEntry): Record<string, unknown> | null {
  const music = m.config.music;
  if (!music) return null;
  return {
    supports_lyrics: music.supportsLyrics,
    lyrics_required: false,
    supports_force_instrumental: music.supportsForceInstrumental,
    voices: music.voices,
    supports_language_code: music.supportsLanguageCode,
    supports_speed: music.supportsSpeed,
    min_duration: music.minSeconds,
    max_duration: music.maxSeconds,
    default_duration: music.defaultSeconds,
    supported_formats: [FORMAT_NAMES[music.format]],
    default_format: FORMAT_NAMES[music.format],
    ...(m.config.promptCharacterLimit ? { prompt_character_limit: m.config.promptCharacterLimit } : {}),
    min_prompt_length: music.minPromptLength,
  };
}
