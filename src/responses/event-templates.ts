import { namedEventText, utf8 } from '../stream/encoder';
import type { ByteOut } from '../stream/spliced-source';

/** Which streamed text a delta event carries: message text, reasoning summary, or call arguments. */
export type DeltaKind = 'text' | 'reasoning' | 'arguments';

/** The event type of each kind of delta. */
export const DELTA_TYPES: Record<DeltaKind, string> = {
  text: 'response.output_text.delta',
  reasoning: 'response.reasoning_summary_text.delta',
  arguments: 'response.function_call_arguments.delta',
};

/** A delta event's payload (without `type` and `sequence_number`), field order as the reference sends it. */
export function deltaPayload(kind: DeltaKind, itemId: string, outputIndex: number, delta: string): Record<string, unknown> {
  if (kind === 'text') return { item_id: itemId, output_index: outputIndex, content_index: 0, delta, logprobs: [] };
  if (kind === 'reasoning') return { item_id: itemId, output_index: outputIndex, summary_index: 0, delta };
  return { item_id: itemId, output_index: outputIndex, delta };
}

const SEQUENCE = '"sequence_number":0';
const DELTA = '"delta":""';

/** The text of a typed event before its sequence number and after its payload, by type. */
const framing = new Map<string, { head: string; tail: string }>();

/**
 * A typed event's SSE text, `type` and `sequence_number` first, then the payload's fields:
 * what namedEventText writes for `{ type, sequence_number, ...payload }`, without building
 * that object. The text around the number is written once per type by namedEventText; the
 * payload is stringified alone and its opening brace dropped.
 */
export function typedEventText(type: string, sequence: number, payload: Record<string, unknown>): string {
  let f = framing.get(type);
  if (!f) {
    const text = namedEventText(type, { type, sequence_number: 0 });
    const at = text.indexOf(SEQUENCE) + SEQUENCE.length - 1;
    f = { head: text.slice(0, at), tail: text.slice(at + 2) }; // the tail after the number's `0}`
    framing.set(type, f);
  }
  const json = JSON.stringify(payload);
  return json === '{}' ? f.head + sequence + '}' + f.tail : f.head + sequence + ',' + json.slice(1) + f.tail;
}

/**
 * The SSE text of one item's delta events cut around the two parts that vary, the sequence
 * number and the delta: written once per item by the one SSE encoder (namedEventText) with
 * placeholders, so a delta event is a concatenation (the delta between the template's quotes,
 * or JSON.stringify's escape of it when it needs one), not an object and a JSON.stringify of
 * it. JSON escapes quotes inside strings, so the placeholders' unescaped text can only be the
 * fields themselves.
 */
export class DeltaTemplate {
  readonly kind: DeltaKind;
  readonly itemId: string;
  private readonly head: string;
  private readonly middle: string;
  private readonly tail: string;
  /** `middle` and `tail` with the delta's quotes, for a delta written as it is. */
  private readonly middleQuote: string;
  private readonly quoteTail: string;

  constructor(kind: DeltaKind, itemId: string, outputIndex: number) {
    const type = DELTA_TYPES[kind];
    const text = namedEventText(type, { type, sequence_number: 0, ...deltaPayload(kind, itemId, outputIndex, '') });
    const sequence = text.indexOf(SEQUENCE) + SEQUENCE.length - 1;
    const delta = text.lastIndexOf(DELTA) + DELTA.length - 2;
    this.kind = kind;
    this.itemId = itemId;
    this.head = text.slice(0, sequence);
    this.middle = text.slice(sequence + 1, delta);
    this.tail = text.slice(delta + 2);
    this.middleQuote = text.slice(sequence + 1, delta + 1);
    this.quoteTail = text.slice(delta + 1);
  }

  /** `head`, `middleQuote` and `quoteTail` in UTF-8, made on the first spliced delta. */
  private bytes: { head: Uint8Array; middleQuote: Uint8Array; quoteTail: Uint8Array } | null = null;

  /**
   * Writes the event for a delta given as the JSON-escaped text `src[from, to)` (an upstream's
   * own escape, copied as it is): what `text` writes for the string that text stands for.
   */
  splice(out: ByteOut, sequence: number, src: Uint8Array, from: number, to: number): void {
    const b = (this.bytes ??= {
      head: utf8.encode(this.head),
      middleQuote: utf8.encode(this.middleQuote),
      quoteTail: utf8.encode(this.quoteTail),
    });
    out.bytes(b.head, 0, b.head.length);
    out.integer(sequence);
    out.bytes(b.middleQuote, 0, b.middleQuote.length);
    out.bytes(src, from, to);
    out.bytes(b.quoteTail, 0, b.quoteTail.length);
  }

  /** The event's text: what namedEventText would write for this sequence number and delta. */
  text(sequence: number, delta: string): string {
    if (needsEscape(delta)) return this.head + sequence + this.middle + JSON.stringify(delta) + this.tail;
    return this.head + sequence + this.middleQuote + delta + this.quoteTail;
  }
}

/**
 * Whether JSON.stringify would write the string other than between two quotes. A chunk's delta
 * is a few characters and most need no escape: a scan costs less than the native call. Control
 * characters, `"`, `\` and lone surrogates are escaped (so any surrogate is sent to it); a
 * long string goes to it unscanned.
 */
function needsEscape(s: string): boolean {
  if (s.length > 64) return true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return true;
  }
  return false;
}
