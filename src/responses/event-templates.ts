import { namedEventText } from '../stream/encoder';

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

/** The text of a typed event before its sequence number and after its payload, by type. */
const framing = new Map<string, { head: string; tail: string }>();

/**
 * A typed event's SSE text, `type` and `sequence_number` first, then the payload's fields:
 * what namedEventText writes for `{ type, sequence_number, ...payload }`, without building
 * that object. The text around the number is written once per type by namedEventText; the
 * payload (never empty) is stringified alone and its opening brace dropped.
 */
export function typedEventText(type: string, sequence: number, payload: Record<string, unknown>): string {
  let f = framing.get(type);
  if (!f) {
    const text = namedEventText(type, { type, sequence_number: 0 });
    const at = text.indexOf(SEQUENCE) + SEQUENCE.length - 1;
    f = { head: text.slice(0, at), tail: text.slice(at + 2) };
    framing.set(type, f);
  }
  return f.head + sequence + ',' + JSON.stringify(payload).slice(1) + f.tail;
}
const DELTA = '"delta":""';

/**
 * The SSE text of one item's delta events cut around the two parts that vary, the sequence
 * number and the delta: written once per item by the one SSE encoder (namedEventText) with
 * placeholders, so a delta event costs a JSON string escape and a concatenation, not an
 * object and a JSON.stringify of it. JSON escapes quotes inside strings, so the
 * placeholders' unescaped text can only be the fields themselves.
 */
export class DeltaTemplate {
  readonly itemId: string;
  private readonly head: string;
  private readonly middle: string;
  private readonly tail: string;

  constructor(kind: DeltaKind, itemId: string, outputIndex: number) {
    const type = DELTA_TYPES[kind];
    const text = namedEventText(type, { type, sequence_number: 0, ...deltaPayload(kind, itemId, outputIndex, '') });
    const sequence = text.indexOf(SEQUENCE) + SEQUENCE.length - 1;
    const delta = text.lastIndexOf(DELTA) + DELTA.length - 2;
    this.itemId = itemId;
    this.head = text.slice(0, sequence);
    this.middle = text.slice(sequence + 1, delta);
    this.tail = text.slice(delta + 2);
  }

  /** The event's text: what namedEventText would write for this sequence number and delta. */
  text(sequence: number, delta: string): string {
    return this.head + sequence + this.middle + jsonString(delta) + this.tail;
  }
}

/**
 * A string as JSON.stringify writes it. A chunk's delta is a few characters and most need no
 * escape: a scan and two quotes cost less than the native call. Anything JSON.stringify
 * would escape (control characters, `"`, `\`, lone surrogates, so any surrogate) goes to it.
 */
export function jsonString(s: string): string {
  if (s.length > 64) return JSON.stringify(s);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(s);
  }
  return '"' + s + '"';
}
