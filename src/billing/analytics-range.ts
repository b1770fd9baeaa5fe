import { invalidField } from '../http/errors';

/** Days a lookback may cover at most (the reference's 90d). */
export const MAX_LOOKBACK_DAYS = 90;
/** Days a startDate/endDate range may cover at most. */
export const MAX_RANGE_DAYS = 366;

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The period of a usage-analytics request: its label, its UTC days (inclusive) and [start, end). */
export interface AnalyticsPeriod {
  /** `Nd`, or `startDate:endDate`. */
  label: string;
  /** Every UTC day of the period, oldest first (YYYY-MM-DD). */
  days: string[];
  start: Date;
  end: Date;
}

const field = (name: string, reason: string) => invalidField(name, reason, 'query');
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function dateOf(name: string, value: string): number {
  const ms = DATE.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
  // Date.parse rolls 2026-02-31 over to March: a real date prints back as itself.
  if (Number.isNaN(ms) || isoDay(ms) !== value) throw field(name, 'must be a date YYYY-MM-DD');
  return ms;
}

function period(label: string, firstDay: number, lastDay: number): AnalyticsPeriod {
  const days: string[] = [];
  for (let d = firstDay; d <= lastDay; d += DAY_MS) days.push(isoDay(d));
  return { label, days, start: new Date(firstDay), end: new Date(lastDay + DAY_MS) };
}

/**
 * The period asked for: `lookback=Nd` (1 to 90; default 7d) is the last N UTC days, today
 * included; `startDate` and `endDate` (both, YYYY-MM-DD, inclusive, at most 366 days) a
 * range of days. A lookback with dates, one date alone, an end before the start are 400s
 * naming the field.
 */
export function analyticsPeriod(q: { lookback?: string; startDate?: string; endDate?: string }, now: number): AnalyticsPeriod {
  if (q.startDate !== undefined || q.endDate !== undefined) {
    if (q.lookback !== undefined) throw field('lookback', 'cannot be combined with startDate and endDate');
    if (q.startDate === undefined) throw field('startDate', 'is required with endDate');
    if (q.endDate === undefined) throw field('endDate', 'is required with startDate');
    const start = dateOf('startDate', q.startDate);
    const end = dateOf('endDate', q.endDate);
    if (end < start) throw field('endDate', 'must not be before startDate');
    if ((end - start) / DAY_MS + 1 > MAX_RANGE_DAYS) throw field('endDate', `must be at most ${MAX_RANGE_DAYS} days after startDate`);
    return period(`${q.startDate}:${q.endDate}`, start, end);
  }
  const lookback = q.lookback ?? '7d';
  const match = /^([1-9]\d{0,5})d$/.exec(lookback);
  const n = match ? Number(match[1]) : 0;
  if (!match) throw field('lookback', 'must be a number of days from 1d to 90d, such as 7d');
  if (n > MAX_LOOKBACK_DAYS) throw field('lookback', `must be at most ${MAX_LOOKBACK_DAYS}d`);
  const today = Date.parse(`${isoDay(now)}T00:00:00Z`);
  return period(lookback, today - (n - 1) * DAY_MS, today);
}
