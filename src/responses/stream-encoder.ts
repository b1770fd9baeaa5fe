import type { SseEvent } from '../stream/events';
import type { ByteOut, KeptContent, SplicingEncoder } from '../stream/spliced-source';
import type { ChatChunk } from '../stream/wire';
import type { CitedSource } from './citations';
import { DeltaTemplate, typedEventText, type DeltaKind } from './event-templates';
import { OutputBuilder, type EventSink } from './output';
import { incompleteDetails, responseUsage, type ResponseObject } from './response';
import { plainDeltaField, TextDeltaShape } from './text-delta-shape';

/** Shapes learned at most per stream: an upstream whose text deltas all differ around their content (a per-chunk nonce) stops being studied. */
const LEARNING = 8;

/**
 * The Responses API's typed event stream, encoded from the chat chunks the proxy decoded:
 * `response.created` and `response.in_progress`, the output items' events (OutputBuilder),
 * then `response.completed` (a cut answer says so in `incomplete_details`) carrying usage and
 * svc's `cost`, or `response.failed` when the upstream broke mid-stream. Every event is a
 * named SSE event with a `sequence_number` counting from 0; there is no `[DONE]`. The
 * encoder is the builder's sink: a delta, one per chunk, is written from its item's
 * DeltaTemplate, every other event by typedEventText.
 */
export class ResponsesStreamEncoder implements SplicingEncoder, EventSink {
  // Protected so that a test can check the templates against a plain encoder written over them.
  protected sequence = 0;
  protected pending = '';
  private finishReason: string | null = null;
  private readonly builder: OutputBuilder;
  /** The open item's delta text around the sequence number and the delta (one item streams at a time). */
  private template: DeltaTemplate | null = null;
  /** The upstream's plain content and reasoning deltas' bytes around their string, once seen. */
  private readonly shapes: { content: TextDeltaShape | null; reasoning: TextDeltaShape | null } = { content: null, reasoning: null };
  private learning = LEARNING;

  constructor(
    private readonly shell: ResponseObject,
    idBase: string,
    sources: () => readonly CitedSource[] | undefined,
    /** Receives the final response (completed or failed), to store it. */
    private readonly onFinal: (response: ResponseObject) => void = () => {},
  ) {
    this.builder = new OutputBuilder(idBase, this, sources);
  }

  /** The output items so far (a background response cancelled midway keeps them). */
  get output(): ResponseObject['output'] {
    return this.builder.output;
  }

  start(): string {
    this.event('response.created', { response: this.shell });
    this.event('response.in_progress', { response: this.shell });
    return this.take();
  }

  chunk(chunk: ChatChunk): string {
    // One choice: the Responses API has no `n`.
    const choice = firstChoice(chunk.choices);
    if (!choice) return '';
    if (choice.delta) this.builder.delta(choice.delta);
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return this.take();
  }

  /**
   * A content delta of the open message, or of the open reasoning item inside a `<think>`
   * block, written from the upstream's bytes (the SplicingEncoder side): when the event has the
   * learned shape, its escaped content goes as it is into the item's delta template and,
   * unescaped only when the item is read, into its text.
   */
  splice(bytes: Uint8Array, start: number, end: number, out: ByteOut, kept: KeptContent): boolean {
    const template = this.template;
    if (template === null) return false;
    const shape = this.shapeFor(template);
    if (shape === null) return false;
    const from = shape.match(bytes, start, end);
    if (from === -1) return false;
    const to = end - shape.tailLength;
    this.builder.escapedText(bytes, from, to);
    kept.raw(bytes, from, to);
    template.splice(out, this.sequence++, bytes, from, to);
    return true;
  }

  /**
   * The learned shape whose deltas would only be appended to the open item the template writes:
   * content to the open message, or to the reasoning item inside a `<think>` block; reasoning
   * to the open reasoning item.
   */
  private shapeFor(template: DeltaTemplate): TextDeltaShape | null {
    const { content, reasoning } = this.shapes;
    if (content !== null && template.itemId === this.builder.appendingTo(template.kind)) return content;
    if (reasoning !== null && template.kind === 'reasoning' && template.itemId === this.builder.reasoningOpen()) return reasoning;
    return null;
  }

  /** Learns the shape of the upstream's plain content or reasoning deltas from one that was decoded. */
  decoded(event: SseEvent, chunk: ChatChunk): void {
    const { shapes } = this;
    if (this.learning === 0 || shapes.content?.covers(event.data) || shapes.reasoning?.covers(event.data)) return;
    const field = plainDeltaField(chunk);
    if (field === null) return;
    this.learning--;
    const shape = TextDeltaShape.learn(event, chunk);
    if (shape?.field === 'content') shapes.content = shape;
    else if (shape) shapes.reasoning = shape;
  }

  end(last: ChatChunk | null): string {
    this.builder.finish();
    const response: ResponseObject = {
      ...this.shell,
      status: 'completed',
      incomplete_details: incompleteDetails(this.finishReason),
      output: this.builder.output,
      usage: last?.usage ? responseUsage(last.usage) : null,
      ...(last?.cost ? { cost: last.cost } : {}),
    };
    this.event('response.completed', { response });
    this.onFinal(response);
    return this.take();
  }

  error(message: string): string {
    this.builder.finish(true);
    const response: ResponseObject = {
      ...this.shell,
      status: 'failed',
      output: this.builder.output,
      error: { code: 'server_error', message },
    };
    this.event('response.failed', { response });
    this.onFinal(response);
    return this.take();
  }

  /** Writes any event but a delta (the EventSink side, called by the builder). */
  event(type: string, payload: Record<string, unknown>): void {
    this.pending += typedEventText(type, this.sequence++, payload);
  }

  /** Writes a delta event of the open item (the EventSink side). */
  delta(kind: DeltaKind, itemId: string, outputIndex: number, delta: string): void {
    let template = this.template;
    if (template?.itemId !== itemId) template = this.template = new DeltaTemplate(kind, itemId, outputIndex);
    this.pending += template.text(this.sequence++, delta);
  }

  private take(): string {
    const out = this.pending;
    this.pending = '';
    return out;
  }
}

/** The choice at index 0 (or the first one): a loop, as this runs once per chunk. */
function firstChoice(choices: ChatChunk['choices']): ChatChunk['choices'][number] | undefined {
  for (let i = 0; i < choices.length; i++) if (choices[i]!.index === 0) return choices[i];
  return choices[0];
}
