import type { TextStage } from '@svc/plugin-sdk';
import type { PiiClass, PiiSpan } from './detect';
import { PLACEHOLDER_MAX, restorePlaceholders, type Redactor } from './redact';

/** Most characters held back for one unfinished token run (e-mail, key, grouped number). */
export const MAX_HELD = 256;
/** Most characters held back for an unfinished PEM private key block. */
export const MAX_HELD_KEY = 8192;

const isSpace = (c: string | undefined) => c === ' ' || c === '\n' || c === '\r' || c === '\t';
// A group of a number written with spaces: `+1`, `(415)`, `4111`, `DE89`, `WEST` (IBAN groups are upper case).
const GROUP = /^[A-Z0-9()+.-]{1,8}$/;

/**
 * Where the part of `s` that a later piece could still turn into (or extend) a match
 * begins. PII values contain no whitespace, except numbers written in groups separated by
 * single spaces (cards, phones, IBANs): so the held part is the last whitespace-free run,
 * extended back over single spaces between short alphanumeric groups, and an unfinished
 * `-----BEGIN ... PRIVATE KEY-----` block. Everything before it can be decided now.
 */
export function heldFrom(s: string): number {
  const begin = s.lastIndexOf('-----BEGIN');
  const end = begin === -1 ? -1 : s.indexOf('-----END', begin);
  const closed = end !== -1 && /^-----END [A-Z ]{0,20}PRIVATE KEY-----/.test(s.slice(end, end + 50));
  if (begin !== -1 && !closed && s.length - begin <= MAX_HELD_KEY) {
    const header = s.indexOf('-----', begin + 10);
    if (header === -1 || s.slice(begin, header).includes('PRIVATE KEY')) return begin;
  }
  let start = s.length;
  while (start > 0 && !isSpace(s[start - 1])) start--;
  for (;;) {
    if (s[start - 1] !== ' ' || isSpace(s[start - 2]) || start < 2) break;
    const nextSpace = s.indexOf(' ', start);
    const after = s.slice(start, nextSpace === -1 ? s.length : nextSpace);
    let prev = start - 1;
    while (prev > 0 && !isSpace(s[prev - 1])) prev--;
    if ((after !== '' && !GROUP.test(after)) || !GROUP.test(s.slice(prev, start - 1))) break;
    start = prev;
  }
  return Math.max(start, s.length - MAX_HELD);
}

/**
 * Redacts a stream's text as it flows: each piece is joined to the held-back tail, values
 * that can no longer grow are replaced, and only the part a later piece could still change
 * is held (see heldFrom). A value found across the cut moves the cut before it.
 */
export class StreamRedactor implements TextStage {
  private pending = '';
  /** Most characters held at once, for the latency measurement. */
  maxHeld = 0;

  /** Characters held back now (the latency the redactor adds, in characters). */
  get held(): number {
    return this.pending.length;
  }

  /**
   * `observe`: called for each value instead of replacing it (deny and flag actions); it may
   * throw. `redacted`: called for each value replaced (the outcome of the redact action).
   */
  constructor(
    private readonly redactor: Redactor,
    private readonly observe?: (cls: PiiClass) => void,
    private readonly redacted?: (cls: PiiClass) => void,
  ) {}

  push(piece: string): string {
    const s = this.pending + piece;
    let cut = heldFrom(s);
    const spans = this.redactor.find(s);
    for (const sp of spans) if (sp.start < cut && sp.end > cut) cut = sp.start;
    this.pending = s.slice(cut);
    if (this.pending.length > this.maxHeld) this.maxHeld = this.pending.length;
    return this.settle(
      s.slice(0, cut),
      spans.filter((sp) => sp.end <= cut),
    );
  }

  end(): string {
    const rest = this.pending;
    this.pending = '';
    return this.settle(rest, this.redactor.find(rest));
  }

  private settle(text: string, spans: readonly PiiSpan[]): string {
    if (!this.observe) {
      if (this.redacted) for (const sp of spans) this.redacted(sp.cls);
      return this.redactor.replace(text, spans);
    }
    for (const sp of spans) this.observe(sp.cls);
    return text;
  }
}

const PARTIAL_PLACEHOLDER = /\[[A-Z]*(?:_\d*)?$/;

/** Puts the request's placeholders back into a stream's text, holding back one that may be split (`[EMA` + `IL_1]`). */
export class StreamRestorer implements TextStage {
  private pending = '';

  constructor(private readonly known: ReadonlyMap<string, string>) {}

  push(piece: string): string {
    const s = this.pending + piece;
    const open = s.lastIndexOf('[');
    const hold = open !== -1 && s.length - open < PLACEHOLDER_MAX && PARTIAL_PLACEHOLDER.test(s.slice(open)) ? open : s.length;
    this.pending = s.slice(hold);
    return restorePlaceholders(s.slice(0, hold), this.known);
  }

  end(): string {
    const rest = this.pending;
    this.pending = '';
    return restorePlaceholders(rest, this.known);
  }
}
