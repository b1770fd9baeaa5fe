import { partialTagLength as heldBack } from '@svc/plugin-sdk';
const OPEN = '<think>';
const CLOSE = '</think>';

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/**
 * Removes `<think>...</think>` blocks (and the whitespace right after a block) from text that
 * arrives in pieces. State between pieces: whether we are inside a block, and a held-back
 * possible partial tag (at most 7 characters). Text outside blocks is passed on as soon as
 * it cannot be the start of a tag. An unclosed block swallows the rest. Only the legacy
 * explicit tags are recognised; a bare `</think>` without an opening tag is left alone.
 */
export class ThinkStripper {
  private inThink = false;
  private skipSpace = false;
  private pending = '';

  /** Feeds one piece; returns the visible text that is certain so far. */
  push(text: string): string {
    const s = this.pending === '' ? text : this.pending + text;
    this.pending = '';
    const n = s.length;
    let pos = 0;
    let out = '';
    while (pos < n) {
      if (this.inThink) {
        const close = s.indexOf(CLOSE, pos);
        if (close === -1) {
          const keep = heldBack(s, pos, CLOSE);
          if (keep) this.pending = s.slice(n - keep);
          return out;
        }
        this.inThink = false;
        this.skipSpace = true;
        pos = close + CLOSE.length;
        continue;
      }
      if (this.skipSpace) {
        while (pos < n && isSpace(s.charCodeAt(pos))) pos++;
        if (pos === n) return out;
        this.skipSpace = false;
      }
      const open = s.indexOf(OPEN, pos);
      if (open === -1) {
        const keep = heldBack(s, pos, OPEN);
        if (keep) this.pending = s.slice(n - keep);
        // The common case (no tag anywhere) returns the input string itself: no copy.
        return pos === 0 && keep === 0 ? s : out + s.slice(pos, n - keep);
      }
      out += s.slice(pos, open);
      this.inThink = true;
      pos = open + OPEN.length;
    }
    return out;
  }

  /** Ends the text: a held-back partial tag outside a block was real text after all. */
  end(): string {
    const rest = this.inThink ? '' : this.pending;
    this.pending = '';
    return rest;
  }
}

/** Strips think blocks from a complete text (same rules as the streaming stripper). */
export function stripThink(text: string): string {
  if (!text.includes('<think>')) return text;
  const s = new ThinkStripper();
  return s.push(text) + s.end();
}
