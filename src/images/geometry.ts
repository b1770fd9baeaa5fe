/** Long-edge size of the square image of each resolution name; other aspect ratios keep the same area. */
export const RESOLUTION_EDGE: Readonly<Record<string, number>> = { '1K': 1024, '2K': 2048, '4K': 4096 };

/** Width over height of an `a:b` aspect ratio. */
export function ratioValue(ratio: string): number {
  const [w, h] = ratio.split(':').map(Number);
  return w && h ? w / h : 1;
}

/**
 * The output size for a resolution and aspect ratio: the area of the resolution's square,
 * shaped to the ratio, each side rounded to the model's divisor.
 */
export function dimensionsFor(resolution: string, ratio: string, divisor: number): { width: number; height: number } {
  const edge = RESOLUTION_EDGE[resolution] ?? 1024;
  const r = ratioValue(ratio);
  const round = (v: number) => Math.max(divisor, Math.round(v / divisor) * divisor);
  return { width: round(edge * Math.sqrt(r)), height: round(edge / Math.sqrt(r)) };
}

/** The supported ratio closest to `width` x `height` (compared on a log scale, so 2:1 and 1:2 are equally far from 1:1). */
export function closestRatio(width: number, height: number, supported: readonly string[]): string {
  const target = Math.log(width / height);
  let best = supported[0] ?? '1:1';
  let distance = Infinity;
  for (const ratio of supported) {
    const d = Math.abs(Math.log(ratioValue(ratio)) - target);
    if (d < distance) {
      distance = d;
      best = ratio;
    }
  }
  return best;
}

/** Parses an OpenAI `size` ("1024x1536"); null for `auto` or anything else. */
export function parseSize(size: string | undefined): { width: number; height: number } | null {
  const m = /^(\d{2,5})x(\d{2,5})$/.exec(size ?? '');
  return m ? { width: Number(m[1]), height: Number(m[2]) } : null;
}
