import { PING_BYTES } from './encoder';

/** A running keep-alive; `touch` on every write, `upstream` on every upstream read, `stop` when the stream ends. */
export interface KeepAlive {
  touch(): void;
  /** The upstream sent bytes: its idle count starts again. */
  upstream(): void;
  stop(): void;
}

/** What to do when the upstream stays silent: after `ticks` ticks without an upstream read, `onIdle` runs once. */
export interface IdleWatch {
  ticks: number;
  onIdle(): void;
}

/** A stream's keep-alive: the ticker's record and the proxy's handle in one object (methods, not closures per stream). */
class Pinged implements KeepAlive {
  wrote = true;
  read = true;
  silentTicks = 0;

  constructor(
    private readonly ticker: Ticker,
    readonly write: (bytes: Uint8Array) => void,
    public idle: IdleWatch | null,
  ) {}

  touch() {
    this.wrote = true;
  }

  upstream() {
    this.read = true;
  }

  stop() {
    this.ticker.delete(this);
  }
}

/**
 * One timer per interval for all open streams, not one per stream: with thousands of streams
 * open, a timer each cost a timer-heap entry, a closure and a wake-up per stream; one ticker
 * visits a Set. It runs only while some stream is open.
 */
class Ticker {
  private readonly streams = new Set<Pinged>();
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly intervalMs: number) {}

  add(stream: Pinged) {
    this.streams.add(stream);
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    // The ticker must never keep the process alive on its own.
    (this.timer as { unref?: () => void }).unref?.();
  }

  delete(stream: Pinged) {
    this.streams.delete(stream);
    if (this.streams.size > 0 || !this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
  }

  private tick() {
    for (const stream of this.streams) {
      if (!stream.wrote) stream.write(PING_BYTES);
      stream.wrote = false;
      const idle = stream.idle;
      if (!idle) continue;
      if (stream.read) stream.silentTicks = 0;
      else if (++stream.silentTicks >= idle.ticks) {
        stream.idle = null;
        idle.onIdle();
      }
      stream.read = false;
    }
  }
}

const tickers = new Map<number, Ticker>();

/**
 * Sends `: ping` to a stream when nothing else was written to it during the last tick of its
 * interval (DESIGN "Keep-alive"), so a model silent for minutes does not get the connection
 * dropped by a proxy or client: a silent stream is pinged at most 2 x `intervalMs` after its
 * last write. A flag per write, no clock read on the hot path. With an idle watch, the same
 * ticks count how long the upstream has been silent: `onIdle` runs between `ticks` and
 * `ticks + 1` intervals after its last byte.
 */
export function startKeepAlive(intervalMs: number, write: (bytes: Uint8Array) => void, idle: IdleWatch | null = null): KeepAlive {
  let ticker = tickers.get(intervalMs);
  if (!ticker) {
    ticker = new Ticker(intervalMs);
    tickers.set(intervalMs, ticker);
  }
  const stream = new Pinged(ticker, write, idle);
  ticker.add(stream);
  return stream;
}
