/**
 * Bytes -> lines, the bottom layer of SSE decoding. A streaming TextDecoder keeps a UTF-8
 * character split across network chunks intact, and a `\r` at the end of a chunk is held so
 * that a `\r\n` split across chunks still counts as one line break (openai-node's LineDecoder).
 */
export class LineDecoder {
  private readonly text = new TextDecoder();
  private partial = '';
  // The previous chunk ended in `\r`: a leading `\n` in the next one belongs to the same break.
  private skipLF = false;

  /** Feeds bytes; returns the lines completed by them, without their terminators. */
  decode(bytes: Uint8Array): string[] {
    let s = this.text.decode(bytes, { stream: true });
    if (s.length === 0) return [];
    if (this.skipLF) {
      this.skipLF = false;
      if (s.charCodeAt(0) === 10) s = s.slice(1);
    }
    const lines: string[] = [];
    let start = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      lines.push(this.partial + s.slice(start, i));
      this.partial = '';
      if (c === 13) {
        if (i + 1 < s.length) {
          if (s.charCodeAt(i + 1) === 10) i++;
        } else this.skipLF = true;
      }
      start = i + 1;
    }
    if (start < s.length) this.partial += s.slice(start);
    return lines;
  }

  /** Ends the input; returns the last unterminated line, if any. */
  flush(): string[] {
    const rest = this.partial + this.text.decode();
    this.partial = '';
    return rest.length > 0 ? [rest] : [];
  }
}
