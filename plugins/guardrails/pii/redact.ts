import { detectPii, type DetectOptions, type PiiClass, type PiiSpan } from './detect';

const LABEL: Record<PiiClass, string> = { email: 'EMAIL', phone: 'PHONE', card: 'CARD', iban: 'IBAN', ip: 'IP', secret: 'SECRET' };
/** A placeholder as the redactor writes it: `[EMAIL_1]`. */
export const PLACEHOLDER = /\[(?:EMAIL|PHONE|CARD|IBAN|IP|SECRET)_\d{1,6}\]/g;
/** The longest placeholder, what a stream must hold back at most to restore one split across chunks. */
export const PLACEHOLDER_MAX = '[SECRET_999999]'.length;

/**
 * One request's placeholders: the same value gets the same placeholder every time (within
 * the request), numbered per class in order of first sight, so the model can still tell two
 * different e-mail addresses apart and refer to them.
 */
export class Redactor {
  private readonly byValue = new Map<string, string>();
  private readonly byPlaceholder = new Map<string, string>();
  private readonly counts = new Map<PiiClass, number>();
  /** How many values of each class were seen, for the outcome and the metrics. */
  readonly seen = new Map<PiiClass, number>();

  private readonly detect: DetectOptions;

  constructor(
    readonly classes: ReadonlySet<PiiClass>,
    detect: DetectOptions = {},
  ) {
    this.detect = { ...detect, phoneCache: new Map() };
  }

  /** The placeholder for one value, made on first sight. */
  placeholder(cls: PiiClass, value: string): string {
    const key = `${cls}\u0000${value}`;
    let p = this.byValue.get(key);
    if (!p) {
      const n = (this.counts.get(cls) ?? 0) + 1;
      this.counts.set(cls, n);
      p = `[${LABEL[cls]}_${n}]`;
      this.byValue.set(key, p);
      this.byPlaceholder.set(p, value);
    }
    this.seen.set(cls, (this.seen.get(cls) ?? 0) + 1);
    return p;
  }

  /** The spans of `text` this redactor would replace. */
  find(text: string): PiiSpan[] {
    return detectPii(text, this.classes, this.detect);
  }

  /** `text` with the given spans (from `find`, sorted) replaced by placeholders. */
  replace(text: string, spans: readonly PiiSpan[]): string {
    if (spans.length === 0) return text;
    let out = '';
    let pos = 0;
    for (const s of spans) {
      out += text.slice(pos, s.start) + this.placeholder(s.cls, text.slice(s.start, s.end));
      pos = s.end;
    }
    return out + text.slice(pos);
  }

  /** `text` with every PII value replaced. */
  redact(text: string): string {
    return this.replace(text, this.find(text));
  }

  /** A frozen copy of the placeholders made so far: restoring uses only these (the input's), never ones made for the output. */
  snapshot(): ReadonlyMap<string, string> {
    return new Map(this.byPlaceholder);
  }
}

/** `text` with the known placeholders put back to their values; unknown ones stay. */
export function restorePlaceholders(text: string, known: ReadonlyMap<string, string>): string {
  if (known.size === 0 || !text.includes('[')) return text;
  return text.replace(PLACEHOLDER, (p) => known.get(p) ?? p);
}
