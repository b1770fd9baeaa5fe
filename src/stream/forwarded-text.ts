import type { ChatChunk } from './wire';
import { classifyEvent } from './chunks';
import { SseDecoder } from './events';
import { scanForwardedText } from './forwarded-scan';

/** Bytes (zero-copy path) or characters (decoded path) kept per stream for the fallback count. */
export const FORWARDED_TEXT_CAP = 64 * 1024;

/** The text a chunk carries to the client: content, reasoning and tool-call arguments. */
export function chunkText(chunk: ChatChunk): string {
  let out = '';
  for (const choice of chunk.choices) {
    const d = choice.delta;
    if (!d) continue;
    if (typeof d.content === 'string') out += d.content;
    if (typeof d.reasoning_content === 'string') out += d.reasoning_content;
    if (Array.isArray(d.tool_calls))
      for (const call of d.tool_calls as { function?: { name?: unknown; arguments?: unknown } }[]) {
        if (typeof call.function?.name === 'string') out += call.function.name;
        if (typeof call.function?.arguments === 'string') out += call.function.arguments;
      }
  }
  return out;
}

/**
 * What a stream forwarded, kept so that an upstream that never reports usage can be billed by a
 * tokenizer count of the content the client got. The zero-copy path keeps references to the
 * forwarded byte regions (no copy; the count reads the text out of the bytes in place,
 * forwarded-scan.ts, and decodes the events only when they are unusual); the decoded path
 * keeps the chunks' text. Both stop keeping at FORWARDED_TEXT_CAP and count the content
 * chunks past it instead, so a long stream holds a bounded amount of memory.
 */
export class ForwardedText {
  private readonly regions: Uint8Array[] = [];
  private bytes = 0;
  private text = '';
  /** Content chunks forwarded once the cap was reached, billed one token each. */
  private pastCap = 0;
  /** The zero-copy path's event count when the cap was reached (-1: not reached). */
  private eventsAtCap = -1;

  /**
   * Keeps a forwarded byte region of the zero-copy path; `forwarded.events` counts the content
   * events forwarded, this region's included (read only when the cap is reached: the count is
   * taken on demand).
   */
  keepBytes(region: Uint8Array, forwarded: { readonly events: number }): void {
    if (this.eventsAtCap >= 0) return;
    this.regions.push(region);
    this.bytes += region.length;
    if (this.bytes >= FORWARDED_TEXT_CAP) this.eventsAtCap = forwarded.events;
  }

  /** Keeps the text of a forwarded chunk of the decoded path. */
  keepChunk(chunk: ChatChunk): void {
    if (this.text.length >= FORWARDED_TEXT_CAP) this.pastCap++;
    else this.text += chunkText(chunk);
  }

  /** The content text forwarded within the cap (decoding kept bytes only now), and the content events past it. */
  content(eventsAtEnd = 0): { text: string; chunksPastCap: number } {
    let text = this.text;
    // The bytes read in place (no event decoded, no JSON parsed); decoded only when they are unusual.
    const scanned = this.regions.length > 0 ? scanForwardedText(this.regions, this.bytes) : null;
    if (scanned !== null) text += scanned;
    else if (this.regions.length > 0) {
      const decoder = new SseDecoder();
      for (const region of this.regions)
        for (const event of decoder.push(region)) {
          const e = classifyEvent(event);
          if (e?.kind === 'chunk') text += chunkText(e.chunk);
        }
    }
    return { text, chunksPastCap: this.pastCap + (this.eventsAtCap >= 0 ? eventsAtEnd - this.eventsAtCap : 0) };
  }
}
