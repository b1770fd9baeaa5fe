import { urlCitations, type CitedSource, type UrlCitation } from './citations';
import { DELTA_TYPES, deltaPayload, type DeltaKind } from './event-templates';
import { ThinkSplitter, type SplitText } from './think-split';
import { ByteOut } from '../stream/spliced-source';

/** An `output_text` content part. */
export interface OutputText {
  type: 'output_text';
  text: string;
  annotations: UrlCitation[];
  logprobs: unknown[];
}

/** An item of a response's `output`. */
export type OutputItem =
  | { type: 'message'; id: string; status: 'in_progress' | 'completed' | 'failed'; role: 'assistant'; content: OutputText[] }
  | { type: 'reasoning'; id: string; summary: { type: 'summary_text'; text: string }[] }
  | { type: 'function_call'; id: string; call_id: string; name: string; arguments: string; status: 'in_progress' | 'completed' };

/**
 * Receives each typed event (without `type` and `sequence_number`, which the encoder adds).
 * A sink writes an event before it returns: the builder passes its live items, which later
 * deltas change, instead of copies.
 */
export interface EventSink {
  /** Any event but a delta. */
  event(type: string, payload: Record<string, unknown>): void;
  /** A delta of an open item's text, reasoning or arguments: one per chunk, the hot path (event-templates.ts). */
  delta(kind: DeltaKind, itemId: string, outputIndex: number, delta: string): void;
}

/** The sink of a non-streamed answer, which reads only `output`. */
export const NO_EVENTS: EventSink = { event() {}, delta() {} };

/** Receives every event, deltas too, as a type and a payload: the plain form of a sink. */
export type EmitEvent = (type: string, payload: Record<string, unknown>) => void;

/** A sink that hands every event, deltas as their payload objects, to one function. */
export function emitSink(emit: EmitEvent): EventSink {
  return {
    event: emit,
    delta: (kind, itemId, outputIndex, delta) => emit(DELTA_TYPES[kind], deltaPayload(kind, itemId, outputIndex, delta)),
  };
}

/** The chat delta fields the builder reads (a stream chunk's `delta`, or a whole message). */
export interface ChatDelta {
  content?: string | null;
  reasoning_content?: string | null;
  /** Some upstreams (OpenRouter, vLLM) name it `reasoning`. */
  reasoning?: unknown;
  tool_calls?: unknown[];
}

/** A chat tool-call delta: `index` says which call, the first delta of a call carries id and name. */
interface ToolCallDelta {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

type Open =
  | { kind: 'message'; index: number; item: Extract<OutputItem, { type: 'message' }>; part: OutputText }
  | { kind: 'reasoning'; index: number; item: Extract<OutputItem, { type: 'reasoning' }>; text: string }
  | { kind: 'call'; index: number; item: Extract<OutputItem, { type: 'function_call' }>; key: number; done: boolean };

/**
 * Chat-completions output as Responses output items, in one pass: reasoning (the
 * upstream's `reasoning_content`, or `<think>` blocks in its content) becomes a `reasoning`
 * item with a summary, text a `message` item with one `output_text` part (its `[REF]i[/REF]`
 * markers annotated as url_citations when the item closes), each tool call a
 * `function_call` item. Every change is also reported to the `sink` as the typed event the
 * streaming API sends; a non-streamed answer passes a no-op and reads `output`.
 */
export class OutputBuilder {
  private readonly items: OutputItem[] = [];
  private open: Open | null = null;
  /** The open message's text not yet in its part: spliced deltas' JSON-escaped text, unescaped once when read. */
  private escaped: ByteOut | null = null;
  private readonly callItems = new Map<number, Open & { kind: 'call' }>();
  private readonly think = new ThinkSplitter();
  private count = 0;
  private readonly sink: EventSink;

  constructor(
    private readonly idBase: string,
    /** Where the events go: the stream encoder, NO_EVENTS, or a plain function (emitSink). */
    sink: EventSink | EmitEvent,
    /** The search results the answer may cite, read when a message closes. */
    private readonly sources: () => readonly CitedSource[] | undefined,
  ) {
    this.sink = typeof sink === 'function' ? emitSink(sink) : sink;
  }

  /** The output items so far, in order. */
  get output(): OutputItem[] {
    this.unescape();
    return this.items;
  }

  /**
   * The open item's id when a content delta without `<` would only be appended to its text,
   * else null: the open message's (no `<think>` block open, nothing held back) for `text`, the
   * open reasoning item's inside a `<think>` block for `reasoning`. The case `escapedText` serves.
   */
  appendingTo(kind: DeltaKind): string | null {
    const open = this.open;
    if (kind === 'text') return open?.kind === 'message' && this.think.plain('') ? open.item.id : null;
    return kind === 'reasoning' && open?.kind === 'reasoning' && this.think.thinking() ? open.item.id : null;
  }

  /** The open reasoning item's id, else null: where a reasoning delta (`reasoning_content`) would only be appended. */
  reasoningOpen(): string | null {
    return this.open?.kind === 'reasoning' ? this.open.item.id : null;
  }

  /**
   * Appends content given as a JSON string's escaped text (its delta event written by the
   * caller, from the same bytes), valid UTF-8 without `<`, to the item `appendingTo` named.
   */
  escapedText(src: Uint8Array, from: number, to: number): void {
    (this.escaped ??= new ByteOut(256)).bytes(src, from, to);
  }

  /** Takes one chat delta. */
  delta(d: ChatDelta): void {
    this.unescape();
    const reasoning = typeof d.reasoning_content === 'string' ? d.reasoning_content : typeof d.reasoning === 'string' ? d.reasoning : '';
    if (reasoning) this.reasoningText(reasoning);
    const content = d.content;
    if (typeof content === 'string' && content !== '') {
      if (this.think.plain(content)) this.text(content);
      else this.split(this.think.push(content));
    }
    if (Array.isArray(d.tool_calls)) for (const call of d.tool_calls as ToolCallDelta[]) this.toolCall(call);
  }

  /**
   * Ends the output: held-back text goes out and every open item is closed. When the stream
   * failed, the open message is `failed` and an unfinished call stays `in_progress` (the
   * reference's item statuses; a cut answer is told by the response's `incomplete_details`).
   */
  finish(failed = false): void {
    this.unescape();
    this.split(this.think.end());
    this.close(failed);
    for (const call of this.callItems.values()) if (!call.done) this.closeCall(call, failed);
  }

  /** Moves the escaped text into the open item's text: one decode, and one JSON parse when it holds an escape. */
  private unescape(): void {
    const escaped = this.escaped;
    if (escaped === null || escaped.length === 0) return;
    let text = escaped.decode();
    escaped.clear();
    if (text.includes('\\')) text = JSON.parse(`"${text}"`) as string;
    const open = this.open!;
    if (open.kind === 'message') open.part.text += text;
    else if (open.kind === 'reasoning') open.item.summary[0]!.text = open.text += text;
  }

  private id(prefix: string): string {
    return `${prefix}_${this.idBase}_${this.count++}`;
  }

  private split(s: SplitText): void {
    if (s.thought) this.reasoningText(s.thought);
    if (s.answer) this.text(s.answer);
  }

  private reasoningText(delta: string): void {
    if (this.open?.kind !== 'reasoning') {
      this.close(false);
      const item: Extract<OutputItem, { type: 'reasoning' }> = {
        type: 'reasoning',
        id: this.id('rs'),
        summary: [],
      };
      const index = this.push(item);
      this.open = { kind: 'reasoning', index, item, text: '' };
      const part = { type: 'summary_text', text: '' };
      this.sink.event('response.reasoning_summary_part.added', { item_id: item.id, output_index: index, summary_index: 0, part });
      item.summary.push({ type: 'summary_text', text: '' });
    }
    const open = this.open;
    open.text += delta;
    open.item.summary[0]!.text = open.text;
    this.sink.delta('reasoning', open.item.id, open.index, delta);
  }

  private text(delta: string): void {
    if (this.open?.kind !== 'message') {
      this.close(false);
      const item: Extract<OutputItem, { type: 'message' }> = {
        type: 'message',
        id: this.id('msg'),
        status: 'in_progress',
        role: 'assistant',
        content: [],
      };
      const index = this.push(item);
      const part: OutputText = { type: 'output_text', text: '', annotations: [], logprobs: [] };
      this.sink.event('response.content_part.added', { item_id: item.id, output_index: index, content_index: 0, part });
      item.content.push(part);
      this.open = { kind: 'message', index, item, part };
    }
    const open = this.open;
    open.part.text += delta;
    this.sink.delta('text', open.item.id, open.index, delta);
  }

  private toolCall(d: ToolCallDelta): void {
    const key = typeof d.index === 'number' ? d.index : this.callItems.size;
    let call = this.callItems.get(key);
    if (!call) {
      this.close(false);
      const item: Extract<OutputItem, { type: 'function_call' }> = {
        type: 'function_call',
        id: this.id('fc'),
        call_id: d.id || `call_${this.idBase}_${key}`,
        name: d.function?.name ?? '',
        arguments: '',
        status: 'in_progress',
      };
      call = { kind: 'call', index: this.push(item), item, key, done: false };
      this.callItems.set(key, call);
      this.open = call;
    } else if (d.function?.name && !call.item.name) call.item.name = d.function.name;
    const delta = d.function?.arguments;
    if (delta) {
      call.item.arguments += delta;
      this.sink.delta('arguments', call.item.id, call.index, delta);
    }
  }

  /** Appends an item as in progress and announces it. */
  private push(item: OutputItem): number {
    const index = this.items.length;
    this.items.push(item);
    this.sink.event('response.output_item.added', { output_index: index, item });
    return index;
  }

  /** Closes the open text or reasoning item (calls stay open until the end: their arguments may still come). */
  private close(failed: boolean): void {
    const open = this.open;
    this.open = null;
    if (!open) return;
    if (open.kind === 'call') return;
    if (open.kind === 'reasoning') {
      const { item, index } = open;
      const part = { type: 'summary_text', text: open.text };
      this.sink.event('response.reasoning_summary_text.done', { item_id: item.id, output_index: index, summary_index: 0, text: open.text });
      this.sink.event('response.reasoning_summary_part.done', { item_id: item.id, output_index: index, summary_index: 0, part });
      this.sink.event('response.output_item.done', { output_index: index, item });
      return;
    }
    const { item, index, part } = open;
    part.annotations = urlCitations(part.text, this.sources());
    part.annotations.forEach((annotation, annotation_index) =>
      this.sink.event('response.output_text.annotation.added', {
        item_id: item.id,
        output_index: index,
        content_index: 0,
        annotation_index,
        annotation,
      }),
    );
    this.sink.event('response.output_text.done', {
      item_id: item.id,
      output_index: index,
      content_index: 0,
      text: part.text,
      logprobs: [],
    });
    this.sink.event('response.content_part.done', { item_id: item.id, output_index: index, content_index: 0, part });
    item.status = failed ? 'failed' : 'completed';
    this.sink.event('response.output_item.done', { output_index: index, item });
  }

  private closeCall(call: Open & { kind: 'call' }, failed: boolean): void {
    const { item, index } = call;
    call.done = true;
    if (!failed) item.status = 'completed';
    this.sink.event('response.function_call_arguments.done', {
      item_id: item.id,
      output_index: index,
      name: item.name,
      arguments: item.arguments,
    });
    this.sink.event('response.output_item.done', { output_index: index, item });
  }
}
