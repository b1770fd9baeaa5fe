import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { PALETTE } from './colors';

/** One line of a chart. */
export interface Line {
  label: string;
  values: (number | null)[];
  /** Its colour (a page gives each model or key one for all its charts, colors.ts); else by position. */
  color?: string;
}

/** Props of a time chart: x in epoch seconds, one or more lines, an accessible title. */
export interface TimeChartProps {
  title: string;
  times: number[];
  lines: Line[];
  /** How the y values read (tick labels and the legend). */
  format?: (v: number) => string;
  height?: number;
  /** Bars rather than lines (counts per bucket). */
  bars?: boolean;
  /** The x range in epoch seconds (default: the data's); a rolling chart fixes it so one point does not span years. */
  xRange?: [number, number];
  /** Counts: ticks on whole numbers only. */
  integer?: boolean;
}

// Whole-number tick steps for counts (uPlot would otherwise label 0.2 steps "0, 0, 1").
const WHOLE_STEPS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 1e7, 1e8, 1e9];

/** The x range: as given, else the data's widened by half a bucket each side (bars stay whole; one point is a day, not years). */
function rangeOf(times: number[], given: [number, number] | undefined): [number, number] | null {
  if (given) return given;
  if (times.length === 0) return null;
  const step = times.length > 1 ? (times[1] as number) - (times[0] as number) : 86_400;
  return [(times[0] as number) - step / 2, (times.at(-1) as number) + step / 2];
}

/**
 * A uPlot time chart sized to its container (it follows the width as the window resizes).
 * The figure's caption and a visually hidden summary describe it for screen readers.
 */
export function TimeChart({
  title,
  times,
  lines,
  format = (v) => String(v),
  height = 220,
  bars = false,
  xRange,
  integer = false,
}: TimeChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const paths = bars ? uPlot.paths.bars?.({ size: [0.8, 40] }) : undefined;
    const range = rangeOf(times, xRange);
    const plot = new uPlot(
      {
        width: Math.max(el.clientWidth, 200),
        height,
        cursor: { drag: { x: false, y: false } },
        legend: { live: true },
        scales: {
          x: range ? { time: true, range: () => range } : { time: true },
          y: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] },
        },
        axes: [
          // Wider than uPlot's 50 px between time ticks: the first tick's label carries the date
          // ("11/27/26 7:15pm") and ran into the next one on the live charts' 30 s ticks.
          { space: 80 },
          {
            values: (_u, ticks) => ticks.map(format),
            // Wide enough for the longest tick label ("$0.000015" needs more room than "15").
            size: (_u, values) => 20 + 7 * Math.max(3, ...(values ?? []).map((v) => String(v).length)),
            ...(integer ? { incrs: WHOLE_STEPS } : {}),
          },
        ],
        series: [
          {},
          ...lines.map((l, i) => {
            const color = l.color ?? PALETTE[i % PALETTE.length];
            return {
              label: l.label,
              stroke: color,
              fill: bars ? `${color}99` : undefined,
              width: 2,
              paths,
              points: { show: !bars },
              // No point under the cursor: a dash; a bucket left out as zero (bars): zero.
              value: (_u: uPlot, v: number | null, _s: number, at: number | null) =>
                v !== null ? format(v) : bars && at !== null ? format(0) : '–',
            };
          }),
        ],
      },
      // A zero bar would still draw its outline along the axis: leave it out.
      [times, ...lines.map((l) => (bars ? l.values.map((v) => (v === 0 ? null : v)) : l.values))] as uPlot.AlignedData,
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(el.clientWidth, 200), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [times, lines, height, bars, format, integer, xRange?.[0], xRange?.[1]]);
  const total = lines.reduce((n, l) => n + l.values.reduce<number>((m, v) => m + (v ?? 0), 0), 0);
  return (
    <figure class="chart">
      <figcaption>
        {title}
        {total === 0 && <span class="muted small"> · none in this window</span>}
      </figcaption>
      <div ref={box} role="img" aria-label={`${title}: ${lines.length} series, total ${format(total)}`} />
    </figure>
  );
}
