import { LineDecoder } from './lines';

/** One server-sent event: its `event` name (null for the default) and its joined `data`. */
export interface SseEvent {
  event: string | null;
  data: string;
}

/** Lines -> events, per the SSE spec: `data` lines join with `\n`, `:` lines are comments. */
export class SseEventDecoder {
  private data: string[] = [];
  private event: string | null = null;

  /** Feeds one line; returns an event when the line is the blank line that ends one. */
  line(line: string): SseEvent | null {
    if (line.length === 0) return this.dispatch();
    if (line.charCodeAt(0) === 58 /* : */) return null;
    // Nearly every line of a chat stream is `data: {...}`: no field slicing for it.
    if (line.startsWith('data: ')) {
      this.data.push(line.slice(6));
      return null;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    return null;
  }

  /** Ends the input; a last event without its blank line is still delivered. */
  end(): SseEvent | null {
    return this.dispatch();
  }

  private dispatch(): SseEvent | null {
    if (this.data.length === 0) {
      this.event = null;
      return null;
    }
    const out = { event: this.event, data: this.data.length === 1 ? (this.data[0] as string) : this.data.join('\n') };
    this.data = [];
    this.event = null;
    return out;
  }
}

/** Bytes -> events in one object: the whole decoder stack for a byte stream. */
export class SseDecoder {
  private readonly lines = new LineDecoder();
  private readonly events = new SseEventDecoder();

  /** Feeds bytes; returns the events they complete. */
  push(bytes: Uint8Array): SseEvent[] {
    return this.collect(this.lines.decode(bytes), false);
  }

  /** Ends the input; returns any event left open. */
  end(): SseEvent[] {
    return this.collect(this.lines.flush(), true);
  }

  private collect(lines: string[], final: boolean): SseEvent[] {
    const out: SseEvent[] = [];
    for (const line of lines) {
      const e = this.events.line(line);
      if (e) out.push(e);
    }
    if (final) {
      const e = this.events.end();
      if (e) out.push(e);
    }
    return out;
  }
}

/** Iterates the events of an SSE byte stream (for tests and non-hot-path readers). */
export async function* readSseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new SseDecoder();
  for await (const bytes of body) yield* decoder.push(bytes);
  yield* decoder.end();
}
