import type { TextStage } from '@svc/plugin-sdk';
import type { Rule } from './rules';

/** Look-behind kept for rules whose reach is unbounded (regular expressions), in characters. */
export const REGEX_LOOK_BEHIND = 256;
/** Most characters of an unfinished word held back. */
const MAX_WORD = 64;

const isSpace = (c: string | undefined) => c === ' ' || c === '\n' || c === '\r' || c === '\t';

/**
 * Checks a stream's text against rules as it flows. The last unfinished word is held back
 * (so a denied word split over chunks is never shown in part), and the end of what was
 * already passed on is kept as look-behind, so a phrase or pattern split over chunks is
 * still seen. `check` returns the rules that match (deny first); `onMatch` refuses (throws) or records each.
 */
export class StreamChecker implements TextStage {
  private held = '';
  private behind = '';

  constructor(
    private readonly check: (text: string) => Rule[],
    private readonly onMatch: (rule: Rule) => void,
    private readonly lookBehind: number,
  ) {}

  push(piece: string): string {
    const s = this.held + piece;
    this.inspect(this.behind + s);
    let cut = s.length;
    while (cut > 0 && !isSpace(s[cut - 1]) && s.length - cut < MAX_WORD) cut--;
    const out = s.slice(0, cut);
    this.held = s.slice(cut);
    this.behind = (this.behind + out).slice(-this.lookBehind);
    return out;
  }

  end(): string {
    const rest = this.held;
    this.held = '';
    return rest;
  }

  private inspect(text: string): void {
    for (const rule of this.check(text)) this.onMatch(rule);
  }
}

/** How much look-behind a set of rules needs. */
export function lookBehindFor(rules: readonly Rule[]): number {
  return Math.min(REGEX_LOOK_BEHIND, Math.max(MAX_WORD, ...rules.map((r) => r.reach)));
}
