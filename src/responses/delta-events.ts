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
    return this.head + sequence + this.middle + JSON.stringify(delta) + this.tail;
  }
}
