import { RedisClient } from 'bun';
import { LoopClock } from './loop-clock';
import { ChannelListeners, type RedisLink, type RedisLinkOptions } from './redis-contract';
import { isTransientReply, KvUnavailableError } from './unavailable';

const FIRST_RETRY_MS = 50;
/** Bun's error codes that mean the connection itself failed. */
const CONNECTION_ERROR = /CONNECTION|CLOSED|TIMEOUT|SOCKET/;

/**
 * One supervised Bun RedisClient. Bun's own reconnection gives up after `maxRetries` and
 * its offline queue holds commands for as long as the outage lasts, so both are off: a lost
 * connection is thrown away and a new client is built, attempt after attempt (50 ms
 * doubling to `reconnectMaxDelayMs`), for as long as it takes. Meanwhile commands fail at
 * once. A server that stops answering without closing the socket (paused, partitioned)
 * is caught by a watchdog: the oldest unanswered command past `commandTimeoutMs` closes
 * the connection, which fails every command waiting on it. The watchdog counts on a LoopClock,
 * so a stretch in which this process's event loop was blocked is not taken for Redis's silence.
 */
class SupervisedClient {
  client: RedisClient | null = null;
  private inflight = 0;
  private progressAt = 0;
  private retryMs = FIRST_RETRY_MS;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private connecting = false;
  private closed = false;
  private readonly clock = new LoopClock();
  private readonly reconnected: (() => void)[] = [];

  constructor(
    private readonly url: string,
    private readonly opts: RedisLinkOptions,
    private readonly onConnected: (client: RedisClient) => Promise<void> = async () => {},
  ) {
    this.clock.onTick(() => this.check());
  }

  get ready() {
    return this.client !== null;
  }

  unavailable(cause?: unknown) {
    return new KvUnavailableError(this.opts.retryAfterSeconds, cause);
  }

  onReconnect(fn: () => void) {
    this.reconnected.push(fn);
  }

  /** First connection: fails if Redis is not there at start (the process should not start half-configured). */
  async start() {
    if (!(await this.attempt())) throw new Error(`redis: cannot connect to ${redactUrl(this.url)}`);
  }

  async send(command: string, args: string[]): Promise<unknown> {
    const c = this.client;
    if (!c) {
      this.schedule();
      throw this.unavailable();
    }
    if (this.inflight++ === 0) this.progressAt = this.clock.now();
    try {
      return await c.send(command, args);
    } catch (error) {
      const message = String(error);
      if (isTransientReply(message)) throw this.unavailable(error);
      // A reply error (a script's own error, NOSCRIPT) or a bad argument: the connection is fine.
      if (c.connected && !CONNECTION_ERROR.test((error as { code?: string }).code ?? '')) throw error;
      this.lost(c);
      throw this.unavailable(error);
    } finally {
      this.inflight--;
      this.progressAt = this.clock.now();
    }
  }

  /** Drops a dead connection (once) and starts reconnecting. */
  lost(c: RedisClient) {
    if (this.client !== c) return;
    this.client = null;
    c.onclose = null;
    c.close();
    this.retryMs = FIRST_RETRY_MS;
    this.schedule(0);
  }

  private check() {
    const c = this.client;
    if (c && this.inflight > 0 && this.clock.now() - this.progressAt > this.opts.commandTimeoutMs) this.lost(c);
  }

  private schedule(delay = this.retryMs) {
    if (this.timer || this.connecting || this.closed || this.client) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.reconnect();
    }, delay);
    this.timer.unref?.();
  }

  private async reconnect() {
    if (await this.attempt()) {
      for (const fn of this.reconnected) fn();
      return;
    }
    this.retryMs = Math.min(this.retryMs * 2, this.opts.reconnectMaxDelayMs);
    this.schedule();
  }

  /** One attempt with a fresh client; true when connected. */
  private async attempt(): Promise<boolean> {
    if (this.closed) return false;
    this.connecting = true;
    const c = new RedisClient(this.url, {
      autoReconnect: false,
      enableOfflineQueue: false,
      connectionTimeout: this.opts.connectTimeoutMs,
    });
    try {
      await c.connect();
      c.onclose = () => this.lost(c);
      await this.onConnected(c);
      if (this.closed) throw new Error('closed');
      this.client = c;
      this.retryMs = FIRST_RETRY_MS;
      return true;
    } catch {
      c.onclose = null;
      c.close();
      return false;
    } finally {
      this.connecting = false;
    }
  }

  close() {
    this.closed = true;
    this.clock.stop();
    if (this.timer) clearTimeout(this.timer);
    const c = this.client;
    this.client = null;
    if (c) {
      c.onclose = null;
      c.close();
    }
  }
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparsable url)';
  }
}

/** Whether the server at `url` runs in cluster mode (INFO cluster says cluster_enabled:1); a server that refuses INFO (renamed on some managed services) is taken as a single node. */
export async function isClusterNode(url: string, opts: RedisLinkOptions): Promise<boolean> {
  const probe = new RedisClient(url, { autoReconnect: false, enableOfflineQueue: false, connectionTimeout: opts.connectTimeoutMs });
  try {
    await probe.connect();
  } catch (error) {
    probe.close();
    throw new Error(`redis: cannot connect to ${redactUrl(url)}: ${String(error)}`);
  }
  try {
    return /cluster_enabled:1/.test(String(await probe.send('INFO', ['cluster'])));
  } catch {
    return false;
  } finally {
    probe.close();
  }
}

/** A link to a single Redis (or a proxy in front of one): commands on one connection, subscriptions on a second. */
export async function connectSingle(url: string, opts: RedisLinkOptions): Promise<RedisLink> {
  const listeners = new ChannelListeners();
  const commands = new SupervisedClient(url, opts);
  // The subscriber re-subscribes every channel on each new connection.
  const subscriber = new SupervisedClient(url, opts, async (c) => {
    for (const channel of listeners.byChannel.keys()) await c.subscribe(channel, (message) => listeners.dispatch(channel, message));
  });
  await commands.start();
  await subscriber.start();

  return {
    topology: 'single',
    get ready() {
      return commands.ready;
    },
    send: (command, args) => commands.send(command, args),
    async publish(channel, message) {
      await commands.send('PUBLISH', [channel, message]);
    },
    async subscribe(channel, onMessage) {
      // While the subscriber is reconnecting, the channel is subscribed with all the others when it is back.
      if (listeners.add(channel, onMessage)) await subscriber.client?.subscribe(channel, (message) => listeners.dispatch(channel, message));
      return async () => {
        if (listeners.remove(channel, onMessage)) await subscriber.client?.unsubscribe(channel).catch(() => {});
      };
    },
    onReconnect: (fn) => commands.onReconnect(fn),
    async close() {
      subscriber.close();
      commands.close();
    },
  };
}
