/**
 * Bytes -> lines, the bottom layer of SSE decoding. A streaming TextDecoder keeps a UTF-8
 * character split across network chunks intact, and a `\r` at the end of a chunk is held so
 * that a `\r\n` split across chunks still counts as one line break (openai-node's LineDecoder).
 */
/** The streaming decode's options, shared: an object literal per call is an allocation per chunk. */
const STREAMING: TextDecodeOptions = { stream: true };

export class LineDecoder {
  private readonly text = new TextDecoder();
  private partial = '';
  // The previous chunk ended in `\r`: a leading `\n` in the next one belongs to the same break.
  private skipLF = false;

  /** Feeds bytes; returns the lines completed by them, without their terminators. */
  decode(bytes: Uint8Array): string[] {
    let s = this.text.decode(bytes, STREAMING);
    if (s.length === 0) return [];
    if (this.skipLF) {
      this.skipLF = false;
      if (s.charCodeAt(0) === 10) s = s.slice(1);
    }
    const lines: string[] = [];
    let start = 0;
    // Found with indexOf (native) rather than a loop over every character: upstreams end
    // lines with `\n`, and a chunk without any `\r` (the common case) needs no other check.
    const hasCR = s.indexOf('\r') !== -1;
    for (;;) {
      const i = hasCR ? nextBreak(s, start) : s.indexOf('\n', start);
      if (i === -1) break;
      lines.push(this.partial === '' ? s.slice(start, i) : this.partial + s.slice(start, i));
      this.partial = '';
      let next = i + 1;
      if (s.charCodeAt(i) === 13) {
        if (next < s.length) {
          if (s.charCodeAt(next) === 10) next++;
        } else this.skipLF = true;
      }
      start = next;
    }
    if (start < s.length) this.partial += s.slice(start);
    return lines;
  }

  /** Ends the input; returns the last unterminated line, if any. The decoder is then as new. */
  flush(): string[] {
    const rest = this.partial + this.text.decode();
    this.partial = '';
    this.skipLF = false;
    return rest.length > 0 ? [rest] : [];
  }
}

/** Index of the next `\n` or `\r` at or after `from`, or -1. */
function nextBreak(s: string, from: number): number {
  const lf = s.indexOf('\n', from);
  const cr = s.indexOf('\r', from);
  if (cr === -1) return lf;
  return lf === -1 || cr < lf ? cr : lf;
}
