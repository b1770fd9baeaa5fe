/** Small display helpers shared by the pages. */

/** A number with thousands separators and at most `digits` decimals. */
export const num = (n: number | null | undefined, digits = 2) =>
  n === null || n === undefined || Number.isNaN(n) ? '–' : n.toLocaleString('en-US', { maximumFractionDigits: digits });

/** An amount of money in its currency, e.g. "$12.50" or "3.2 DIEM". */
export const money = (n: number | string | null | undefined, currency = 'USD') => {
  if (n === null || n === undefined || n === '') return '–';
  const v = typeof n === 'string' ? Number(n) : n;
  // Inference costs fractions of a cent: keep six decimals below a cent, so they do not read as 0.
  const digits = v !== 0 && Math.abs(v) < 0.01 ? 6 : 4;
  return currency === 'USD' ? `$${num(v, digits)}` : `${num(v, digits)} ${currency}`;
};

/**
 * Micro-units as an exact amount, with no rounding: "$0.000042", "$4.20", "12.5 DIEM", "$0".
 * Integer arithmetic: a float division would print 0.1 + 0.2 worth of noise.
 */
export function exactMoney(micros: number, currency = 'USD'): string {
  const abs = Math.abs(Math.round(micros));
  const whole = Math.floor(abs / 1_000_000).toLocaleString('en-US');
  const fraction = String(abs % 1_000_000)
    .padStart(6, '0')
    .replace(/0+$/, '');
  const text = `${micros < 0 ? '-' : ''}${whole}${fraction ? '.' + fraction.padEnd(2, '0') : ''}`;
  return currency === 'USD' ? `$${text}` : `${text} ${currency}`;
}

/** An ISO date-time as "2026-11-27 18:05" (UTC), or a dash. */
export const when = (iso: string | null | undefined) => (iso ? iso.replace('T', ' ').slice(0, 16) + ' UTC' : '–');

/** A short form of a UUID for tables. */
export const shortId = (id: string) => id.slice(0, 8);

/** Saves text as a file download (CSV export). */
export function download(name: string, text: string, type = 'text/csv'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  URL.revokeObjectURL(url);
}

/** A number of seconds as "45 s", "31 min" or "2.5 h". */
export const duration = (seconds: number) =>
  seconds < 120 ? `${num(seconds, 0)} s` : seconds < 7200 ? `${num(seconds / 60, 0)} min` : `${num(seconds / 3600, 1)} h`;
