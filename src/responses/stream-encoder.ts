import { namedEventText, type StreamEncoder } from '../stream/encoder';
import type { ChatChunk } from '../stream/wire';
import type { CitedSource } from './citations';
import { OutputBuilder } from './output';
import { incompleteDetails, responseUsage, type ResponseObject } from './response';

/**
 * The Responses API's typed event stream, encoded from the chat chunks the proxy decoded:
 * `response.created` and `response.in_progress`, the output items' events (OutputBuilder),
 * then `response.completed` (a cut answer says so in `incomplete_details`) carrying usage and
 * svc's `cost`, or `response.failed` when the upstream broke mid-stream. Every event is a
 * named SSE event with a `sequence_number` counting from 0; there is no `[DONE]`.
 */
export class ResponsesStreamEncoder implements StreamEncoder {
  private sequence = 0;
  private pending = '';
  private finishReason: string | null = null;
  private readonly builder: OutputBuilder;

  constructor(
    private readonly shell: ResponseObject,
    idBase: string,
    sources: () => readonly CitedSource[] | undefined,
  ) {
    this.builder = new OutputBuilder(idBase, (type, payload) => this.add(type, payload), sources);
  }

  start(): string {
    this.add('response.created', { response: this.shell });
    this.add('response.in_progress', { response: this.shell });
    return this.take();
  }

  chunk(chunk: ChatChunk): string {
    // One choice: the Responses API has no `n`.
    const choice = chunk.choices.find((c) => c.index === 0) ?? chunk.choices[0];
    if (!choice) return '';
    if (choice.delta) this.builder.delta(choice.delta);
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return this.take();
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
    this.add('response.completed', { response });
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
    this.add('response.failed', { response });
    return this.take();
  }

  private add(type: string, payload: Record<string, unknown>): void {
    this.pending += namedEventText(type, { type, sequence_number: this.sequence++, ...payload });
  }

  private take(): string {
    const out = this.pending;
    this.pending = '';
    return out;
  }
}
