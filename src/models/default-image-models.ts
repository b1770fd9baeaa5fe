import type { ModelConfig } from './schema';

const FIVE_RATIOS = ['1:1', '3:2', '16:9', '9:16', '2:3'];
const ALL_RATIOS = ['1:1', '3:2', '16:9', '21:9', '9:16', '2:3', '3:4', '4:5'];

/** The reference's GPT Image 2 quality table (USD per image by resolution and tier). */
const GPT_IMAGE_2_QUALITY = {
  '1K': { low: '0.03', medium: '0.08', high: '0.34' },
  '2K': { low: '0.03', medium: '0.14', high: '0.52' },
  '4K': { low: '0.04', medium: '0.22', high: '0.84' },
};

/**
 * Image, edit, upscale and background-removal models served by the simulator out of the
 * box (ids and prices from the public catalog the spec derives from), so every image route
 * answers on a fresh `npm start`; each is labelled simulated in /models.
 */
export function defaultImageModels(sim: ModelConfig['routes']): ModelConfig[] {
  const base = { routes: sim, traits: [] as string[], privacy: 'private' as const };
  const steps = { default: 8, max: 30 };
  return [
    {
      ...base,
      id: 'z-image-turbo',
      name: 'Z-Image Turbo (simulated)',
      type: 'image',
      pricing: { perUnit: '0.01' },
      promptCharacterLimit: 7500,
      traits: ['default', 'fastest'],
      image: {
        operation: 'generate',
        resolutions: ['1K'],
        aspectRatios: FIVE_RATIOS,
        defaultAspectRatio: '1:1',
        steps,
        widthHeightDivisor: 16,
        pricing: {},
      },
    },
    {
      ...base,
      id: 'gpt-image-2',
      name: 'GPT Image 2 (simulated)',
      type: 'image',
      pricing: { perUnit: '0.08' },
      promptCharacterLimit: 32000,
      traits: ['highest_quality'],
      image: {
        operation: 'generate',
        resolutions: ['1K', '2K', '4K'],
        defaultResolution: '1K',
        aspectRatios: ALL_RATIOS,
        defaultAspectRatio: '1:1',
        qualities: ['low', 'medium', 'high'],
        defaultQuality: 'medium',
        steps,
        widthHeightDivisor: 16,
        pricing: { resolutions: { '1K': '0.08', '2K': '0.14', '4K': '0.22' }, quality: GPT_IMAGE_2_QUALITY },
      },
    },
    {
      ...base,
      id: 'firered-image-edit',
      name: 'FireRed Image Edit (simulated)',
      type: 'inpaint',
      pricing: { perUnit: '0.04' },
      promptCharacterLimit: 32768,
      traits: ['default'],
      image: {
        operation: 'edit',
        resolutions: ['1K', '2K'],
        defaultResolution: '1K',
        aspectRatios: ALL_RATIOS,
        defaultAspectRatio: '1:1',
        steps,
        widthHeightDivisor: 16,
        pricing: { resolutions: { '1K': '0.04', '2K': '0.06' } },
      },
    },
    {
      ...base,
      id: 'gpt-image-2-edit',
      name: 'GPT Image 2 Edit (simulated)',
      type: 'inpaint',
      pricing: { perUnit: '0.34' },
      promptCharacterLimit: 32000,
      image: {
        operation: 'edit',
        resolutions: ['1K', '2K', '4K'],
        defaultResolution: '1K',
        aspectRatios: ALL_RATIOS,
        defaultAspectRatio: '1:1',
        qualities: ['low', 'medium', 'high'],
        defaultQuality: 'high',
        steps,
        widthHeightDivisor: 16,
        pricing: {
          resolutions: { '1K': '0.34', '2K': '0.52', '4K': '0.84' },
          quality: GPT_IMAGE_2_QUALITY,
          inputImages: { included: 1, additional: '0.0092' },
        },
      },
    },
    {
      ...base,
      id: 'upscaler',
      name: 'Upscaler (simulated)',
      type: 'upscale',
      pricing: { perUnit: '0.02' },
      image: {
        operation: 'upscale',
        resolutions: ['1K'],
        aspectRatios: [],
        defaultAspectRatio: '1:1',
        steps,
        widthHeightDivisor: 1,
        pricing: { upscale: { '2x': '0.02', '4x': '0.08' } },
      },
    },
    {
      ...base,
      id: 'bria-bg-remover',
      name: 'Background remover (simulated)',
      type: 'image',
      pricing: { perUnit: '0.02' },
      image: {
        operation: 'background-remove',
        resolutions: ['1K'],
        aspectRatios: [],
        defaultAspectRatio: '1:1',
        steps,
        widthHeightDivisor: 1,
        pricing: {},
      },
    },
  ];
}
