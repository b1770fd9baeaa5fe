import { RandomIdGenerator, type IdGenerator } from '@opentelemetry/sdk-trace';

/**
 * The SDK's id generator, with the next trace and span id settable: spans are built after the
 * answer, and the server and upstream spans must carry the ids decided when the request
 * arrived (the upstream was sent them in its `traceparent`). Building is synchronous, so the
 * id set just before a `startSpan` is the one that span takes.
 */
export class PresetIds implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  private nextTraceId: string | null = null;
  private nextSpanId: string | null = null;

  /** The ids the next span started takes (its trace id only when it has no parent). */
  preset(traceId: string, spanId: string): void {
    this.nextTraceId = traceId;
    this.nextSpanId = spanId;
  }

  generateTraceId(): string {
    const id = this.nextTraceId ?? this.random.generateTraceId();
    this.nextTraceId = null;
    return id;
  }

  generateSpanId(): string {
    const id = this.nextSpanId ?? this.random.generateSpanId();
    this.nextSpanId = null;
    return id;
  }

  /** A new random trace id. */
  traceId(): string {
    return this.random.generateTraceId();
  }

  /** A new random span id. */
  spanId(): string {
    return this.random.generateSpanId();
  }
}
