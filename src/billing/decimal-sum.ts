/**
 * An exact running sum of decimal strings ("0.000012", "3600", "-1.5"), for the ledger
 * writer's daily sums. Each addend is parsed once into an integer at the sum's scale (the
 * longest fraction seen) and added as a Number while the sum stays a safe integer, so the
 * usual case (a few token lines of up to 9 decimals a charge) allocates no BigInt; past 2^53
 * it carries on in BigInt. Never a float: a Number here only ever holds an integer that
 * `Number.isSafeInteger` confirms, and such products and sums are exact.
 *
 * The previous version re-parsed the accumulated string as a BigInt on every addition; it was
 * ~40 % of the ledger batch's JavaScript on the embedded database (docs/perf-notes/2026-11-28.md).
 */
export class DecimalSum {
  private scale = 0;
  private small = 0;
  private big: bigint | null = null;

  /** Adds `units`, which must match /^-?\d+(\.\d+)?$/. */
  add(units: string): void {
    const dot = units.indexOf('.');
    const fraction = dot < 0 ? 0 : units.length - dot - 1;
    if (fraction > this.scale) this.rescale(fraction);
    const digits = dot < 0 ? units : units.slice(0, dot) + units.slice(dot + 1);
    const pad = this.scale - fraction;
    if (this.big === null) {
      const value = Number(digits) * 10 ** pad;
      const next = this.small + value;
      if (Number.isSafeInteger(value) && Number.isSafeInteger(next)) {
        this.small = next;
        return;
      }
      this.big = BigInt(this.small);
    }
    this.big += BigInt(digits) * 10n ** BigInt(pad);
  }

  /** The sum as a decimal string with the longest fraction of its addends ("0" for none). */
  toString(): string {
    const sum = this.big ?? BigInt(this.small);
    if (this.scale === 0) return sum.toString();
    const negative = sum < 0n;
    const digits = (negative ? -sum : sum).toString().padStart(this.scale + 1, '0');
    return `${negative ? '-' : ''}${digits.slice(0, -this.scale)}.${digits.slice(-this.scale)}`;
  }

  private rescale(scale: number) {
    const factor = scale - this.scale;
    this.scale = scale;
    if (this.big === null) {
      const value = this.small * 10 ** factor;
      if (Number.isSafeInteger(value)) {
        this.small = value;
        return;
      }
      this.big = BigInt(this.small);
    }
    this.big *= 10n ** BigInt(factor);
  }
}
