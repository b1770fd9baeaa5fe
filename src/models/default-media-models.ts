import type { ModelConfig } from './schema';

/**
 * Video and music models served by the simulator out of the box (ids from the public catalog
 * the spec derives from), so the media-job routes answer on a fresh `npm start`; each is
 * labelled simulated in /models and produces a real H.264 MP4 or WAV file.
 */
export function defaultMediaModels(sim: ModelConfig['routes']): ModelConfig[] {
  const base = { routes: sim, traits: [] as string[], privacy: 'private' as const };
  return [
    {
      ...base,
      id: 'wan-2-7-text-to-video',
      name: 'Wan 2.7 Text to Video (simulated)',
      type: 'video',
      pricing: { perUnit: '0.10' },
      promptCharacterLimit: 2500,
      traits: ['default'],
      video: {
        durations: ['2s', '5s', '10s'],
        defaultSeconds: 5,
        resolutions: ['480p', '720p', '1080p'],
        defaultResolution: '720p',
        aspectRatios: ['16:9', '9:16', '1:1'],
        defaultAspectRatio: '16:9',
        audio: true,
        inputs: [],
        expectedSeconds: 5,
        pricing: { perSecond: { '480p': '0.05', '720p': '0.10', '1080p': '0.15' }, audioPerSecond: '0.02' },
      },
    },
    {
      ...base,
      id: 'seedance-2-0-reference-to-video',
      name: 'Seedance 2.0 Reference to Video (simulated)',
      type: 'video',
      pricing: { perUnit: '0.12' },
      promptCharacterLimit: 10_000,
      video: {
        durations: ['5s', '10s'],
        defaultSeconds: 5,
        resolutions: ['480p', '720p'],
        defaultResolution: '720p',
        aspectRatios: ['16:9', '9:16', '1:1', '21:9'],
        defaultAspectRatio: '16:9',
        audio: false,
        inputs: ['image', 'end_image', 'reference_images', 'reference_videos', 'reference_audios'],
        consent: 'seedance',
        expectedSeconds: 5,
        pricing: { perSecond: { '480p': '0.06', '720p': '0.12' }, aspectRatio: { '21:9': 130 } },
      },
    },
    {
      ...base,
      id: 'elevenlabs-music',
      name: 'ElevenLabs Music (simulated)',
      type: 'music',
      pricing: { perUnit: '0.01' },
      promptCharacterLimit: 2000,
      traits: ['default'],
      music: {
        defaultSeconds: 30,
        minSeconds: 5,
        maxSeconds: 300,
        minPromptLength: 1,
        supportsLyrics: true,
        supportsForceInstrumental: true,
        supportsLyricsOptimizer: true,
        supportsLanguageCode: false,
        supportsSpeed: false,
        voices: [],
        format: 'audio/wav',
        expectedSeconds: 5,
      },
    },
    {
      ...base,
      id: 'elevenlabs-sound-effects-v2',
      name: 'ElevenLabs Sound Effects v2 (simulated)',
      type: 'music',
      pricing: { perUnit: '0' },
      promptCharacterLimit: 1000,
      music: {
        defaultSeconds: 5,
        minSeconds: 1,
        maxSeconds: 22,
        minPromptLength: 1,
        supportsLyrics: false,
        supportsForceInstrumental: false,
        supportsLyricsOptimizer: false,
        supportsLanguageCode: false,
        supportsSpeed: false,
        voices: [],
        perThousandCharacters: '0.20',
        format: 'audio/wav',
        expectedSeconds: 3,
      },
    },
  ];
}
