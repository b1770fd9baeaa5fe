import { partialTagLength as heldBack } from '../stream/partial-tag';
const OPEN = '<think>';
const CLOSE = '</think>';

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/** Text split into what the model thought (inside `<think>` blocks) and what it answered. */
export interface SplitText {
  thought: string;
  answer: string;
}

/**
 * Splits text that arrives in pieces into `<think>` reasoning and answer text, for upstreams
 * (and the simulator) that think inline instead of sending `reasoning_content`. The same
 * rules as plugins/strip_thinking_response's stripper, which drops what this keeps: a
 * possible partial tag (at most 8 characters) is held back until the next piece decides
 * it, the whitespace right after a block is dropped, and an unclosed block is all thought.
 */
export class ThinkSplitter {
  private inThink = false;
  private skipSpace = false;
  private pending = '';

  /**
   * Whether a piece is answer text as it is, what `push` would return as the answer without
   * holding anything back: no block open, nothing held or skipped, and no `<` to start a tag.
   * Most chunks are; the caller then takes the piece itself and skips `push`.
   */
  plain(text: string): boolean {
    return !this.inThink && !this.skipSpace && this.pending === '' && !text.includes('<');
  }

  /**
   * Whether a piece without `<` is thought as it is, what `push` would return as the thought:
   * a block open and nothing held back (a piece without `<` cannot close it or start a tag).
   */
  thinking(): boolean {
    return this.inThink && this.pending === '';
  }

  /** Feeds one piece; returns the thought and answer text that are certain so far. */
  push(text: string): SplitText {
    const s = this.pending + text;
    this.pending = '';
    const out: SplitText = { thought: '', answer: '' };
    let pos = 0;
    while (pos < s.length) {
      if (this.inThink) {
        const close = s.indexOf(CLOSE, pos);
        if (close === -1) {
          const keep = heldBack(s, pos, CLOSE);
          out.thought += s.slice(pos, s.length - keep);
          this.pending = s.slice(s.length - keep);
          return out;
        }
        out.thought += s.slice(pos, close);
        this.inThink = false;
        this.skipSpace = true;
        pos = close + CLOSE.length;
        continue;
      }
      if (this.skipSpace) {
        while (pos < s.length && isSpace(s.charCodeAt(pos))) pos++;
        if (pos === s.length) return out;
        this.skipSpace = false;
      }
      const open = s.indexOf(OPEN, pos);
      if (open === -1) {
        const keep = heldBack(s, pos, OPEN);
        out.answer += s.slice(pos, s.length - keep);
        this.pending = s.slice(s.length - keep);
        return out;
      }
      out.answer += s.slice(pos, open);
      this.inThink = true;
      pos = open + OPEN.length;
    }
    return out;
  }

  /** Ends the text: a held-back partial tag was text after all. */
  end(): SplitText {
    const rest = this.pending;
    this.pending = '';
    return this.inThink ? { thought: rest, answer: '' } : { thought: '', answer: rest };
  }
}
