/** Style presets of `style_preset` (GET /image/styles); each adds its words to the prompt sent upstream. */
export const IMAGE_STYLES: Readonly<Record<string, string>> = {
  '3D Model': 'professional 3d model, octane render, highly detailed, volumetric, dramatic lighting',
  'Analog Film': 'analog film photo, faded film, desaturated, 35mm photo, grainy, vignette, vintage',
  Anime: 'anime artwork, anime style, key visual, vibrant, studio anime, highly detailed',
  Cinematic: 'cinematic film still, shallow depth of field, vignette, highly detailed, high budget, bokeh',
  'Comic Book': 'comic book style, graphic illustration, comic art, graphic novel art, vibrant, highly detailed',
  'Digital Art': 'concept art, digital artwork, illustrative, painterly, matte painting, highly detailed',
  'Fantasy Art': 'ethereal fantasy concept art, magnificent, celestial, ethereal, painterly, epic, majestic, magical',
  'Line Art': 'line art drawing, professional, sleek, modern, minimalist, graphic, line art, vector graphics',
  'Neon Punk': 'neon punk style, cyberpunk, vaporwave, neon, vibes, vibrant, stunningly beautiful, crisp, detailed',
  Photographic: 'cinematic photo, 35mm photograph, film, bokeh, professional, 4k, highly detailed',
  'Pixel Art': 'pixel-art, low-res, blocky, pixel art style, 8-bit graphics',
  Watercolor: 'watercolor painting, vibrant, beautiful, painterly, detailed, textural, artistic',
};

/** The prompt with the style's words appended (no style: unchanged). */
export function styledPrompt(prompt: string, style: string | undefined): string {
  const words = style ? IMAGE_STYLES[style] : undefined;
  return words ? `${prompt}, ${words}` : prompt;
}
