/** Micro-units per whole unit: 1 USD = 1,000,000 micro-USD. */
export const MICROS = 1_000_000;

/**
 * Parses an exact decimal ("0.15", "12", 0.7) into integer micro-units without float
 * arithmetic on the fraction. More than 6 fraction digits are rounded half up.
 */
export function toMicros(value: string | number): number {
  const text = typeof value === 'number' ? numberToPlain(value) : value.trim();
  const match = /^(-)?(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new Error(`not a decimal amount: ${text}`);
  const [, sign, whole = '0', fraction = ''] = match;
  let micros = Number(whole) * MICROS + Number(fraction.slice(0, 6).padEnd(6, '0'));
  if (fraction.length > 6 && Number(fraction[6]) >= 5) micros += 1;
  return sign ? -micros : micros;
}

function numberToPlain(n: number): string {
  if (!Number.isFinite(n)) throw new Error(`not a finite amount: ${n}`);
  // toFixed(12) avoids exponent notation for tiny prices (1e-7) while staying exact to 6 places.
  return n.toFixed(12).replace(/\.?0+$/, '');
}

/** Below this many micro-units (in magnitude) `formatMicros` divides and formats once. */
const SMALL_MICROS = 2 ** 31;

/** Formats micro-units as a decimal string with `places` fraction digits (default 6). */
export function formatMicros(micros: number, places = 6): string {
  // One string where the general path builds four or five (a balance header, a ledger line's
  // units: several a request). Exact: below 2^31 micro-units the double nearest micros / 10^6
  // is within 3e-13 of it, so toFixed's correctly rounded 6 places are its digits.
  if (places === 6 && Number.isInteger(micros) && micros < SMALL_MICROS && micros > -SMALL_MICROS) return (micros / MICROS).toFixed(6);
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(micros);
  const whole = Math.floor(abs / MICROS);
  const fraction = String(abs % MICROS).padStart(6, '0');
  if (places === 0) return sign + whole;
  return `${sign}${whole}.${fraction.slice(0, places).padEnd(places, '0')}`;
}

/** Micro-units to a JSON number, for response fields that the reference types as numbers. */
export function microsToNumber(micros: number): number {
  // The same double as Number(formatMicros(micros)): both are the correctly rounded value of
  // the exact rational micros / 10^6 (IEEE division rounds correctly), without a string.
  return micros / MICROS;
}

/**
 * Cost in micro-units of `tokens` at `pricePerMillionMicros` (micro-USD per 1M tokens),
 * rounded up so fractional costs are never lost. Integer arithmetic only.
 */
export function tokenCostMicros(tokens: number, pricePerMillionMicros: number): number {
  const product = tokens * pricePerMillionMicros;
  // Below 2^53 integer products, remainders and exact divisions are exact in doubles; BigInt only beyond.
  if (Number.isSafeInteger(product)) {
    const rest = product % 1_000_000;
    return (product - rest) / 1_000_000 + (rest > 0 ? 1 : 0);
  }
  return Number((BigInt(tokens) * BigInt(pricePerMillionMicros) + 999_999n) / 1_000_000n);
}
