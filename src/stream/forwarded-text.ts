import type { ChatChunk } from './wire';
import { classifyEvent } from './chunks';
import { SseDecoder } from './events';
import { scanForwardedText } from './forwarded-scan';
import { joinedRegions } from './joined-regions';

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
 * Kept regions are folded into their text once this many are held, after a first FOLD_FIRST: a
 * slow upstream's stream is one small region per event (~180 bytes, each its own buffer), and a
 * stream held open kept a reference to each up to the cap (~350): ~45 KB a stream of 1,000 held
 * ones after a few seconds, 72 KB each of the bench's 9,850. Folded, it holds the content (a few
 * percent of the bytes). A stream of up to FOLD_FIRST reads never folds, so it is never scanned
 * unless its count is needed (a scan is a few byte searches per event).
 */
const FOLD_FIRST = 64;
const FOLD_REGIONS = 16;

/**
 * What a stream forwarded, kept so that an upstream that never reports usage can be billed by a
 * tokenizer count of the content the client got. The zero-copy path keeps references to the
 * forwarded byte regions (no copy; the count reads the text out of the bytes in place,
 * forwarded-scan.ts, and decodes the events only when they are unusual), folded into their text
 * every FOLD_REGIONS regions; the decoded path keeps the chunks' text. Both stop keeping at
 * FORWARDED_TEXT_CAP (bytes forwarded, or characters) and count the content chunks past it
 * instead, so a long stream holds a bounded amount of memory.
 */
export class ForwardedText {
  private readonly regions: Uint8Array[] = [];
  /** Bytes in `regions`. */
  private regionBytes = 0;
  /** Bytes kept on the zero-copy path, folded ones included (the cap's measure). */
  private bytes = 0;
  private text = '';
  /** Content chunks forwarded once the cap was reached, billed one token each. */
  private pastCap = 0;
  /** Regions held when the next fold happens. */
  private foldAt = FOLD_FIRST;
  /** The zero-copy path's event count when the cap was reached (-1: not reached). */
  private eventsAtCap = -1;

  /**
   * Keeps a forwarded byte region of the zero-copy path (whole events: the tap forwards no
   * partial one); `forwarded.events` counts the content events forwarded, this region's
   * included (read only when the cap is reached: the count is taken on demand).
   */
  keepBytes(region: Uint8Array, forwarded: { readonly events: number }): void {
    if (this.eventsAtCap >= 0) return;
    this.regions.push(region);
    this.regionBytes += region.length;
    this.bytes += region.length;
    if (this.bytes >= FORWARDED_TEXT_CAP) this.eventsAtCap = forwarded.events;
    if (this.regions.length >= this.foldAt) this.fold();
  }

  /** Forwarded regions held by reference now (fewer than FOLD_FIRST, then than FOLD_REGIONS, between reads). */
  get heldRegions(): number {
    return this.regions.length;
  }

  /** Keeps the text of a forwarded chunk of the decoded path. */
  keepChunk(chunk: ChatChunk): void {
    if (this.text.length >= FORWARDED_TEXT_CAP) this.pastCap++;
    else this.text += chunkText(chunk);
  }

  /** The content text forwarded within the cap (decoding kept bytes only now), and the content events past it. */
  content(eventsAtEnd = 0): { text: string; chunksPastCap: number } {
    const text = this.regions.length > 0 ? this.text + this.regionsText() : this.text;
    return { text, chunksPastCap: this.pastCap + (this.eventsAtCap >= 0 ? eventsAtEnd - this.eventsAtCap : 0) };
  }

  /** Replaces the kept regions by their text. */
  private fold() {
    this.text += this.regionsText();
    this.regions.length = 0;
    this.regionBytes = 0;
    this.foldAt = FOLD_REGIONS;
  }

  /** The content text of the kept regions: read in place, decoded only when they are unusual. */
  private regionsText(): string {
    // Whole events each, so joined they read as they would one by one.
    const scanned = scanForwardedText([joinedRegions(this.regions, this.regionBytes)], this.regionBytes);
    if (scanned !== null) return scanned;
    let text = '';
    const decoder = new SseDecoder();
    for (const region of this.regions)
      for (const event of decoder.push(region)) {
        const e = classifyEvent(event);
        if (e?.kind === 'chunk') text += chunkText(e.chunk);
      }
    return text;
  }
}
