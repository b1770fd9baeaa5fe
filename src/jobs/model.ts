import type { ModelEntry } from '../models/catalog';

/** The reference's `model_type` of a video model: what it takes as input. */
function videoModelType(inputs: readonly string[]): 'text-to-video' | 'image-to-video' | 'video' {
  if (inputs.length === 0) return 'text-to-video';
  return inputs.some((i) => i.includes('video')) ? 'video' : 'image-to-video';
}

/**
 * What GET /models publishes of a video or music model under `model_spec.constraints`: the
 * options a request may name (the queue and quote routes refuse any other). Video models in
 * the reference's "Video Model Constraints" shape (plus svc's inputs, upscale factors and
 * consent flow); music models in the snake_case its audio routes cite (`supports_lyrics`, `min_prompt_length`, ...).
 */
export function presentJobConstraints(m: ModelEntry): Record<string, unknown> | null {
  const video = m.config.video;
  if (video)
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
  const music = m.config.music;
  if (music)
    return {
      default_duration: music.defaultSeconds,
      min_duration: music.minSeconds,
      max_duration: music.maxSeconds,
      min_prompt_length: music.minPromptLength,
      supports_lyrics: music.supportsLyrics,
      supports_force_instrumental: music.supportsForceInstrumental,
      supports_lyrics_optimizer: music.supportsLyricsOptimizer,
      supports_language_code: music.supportsLanguageCode,
      supports_speed: music.supportsSpeed,
      voices: music.voices,
      format: music.format,
    };
  return null;
}
