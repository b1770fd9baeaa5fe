import { Cluster } from 'ioredis';
import { CommandDeadlines } from './loop-clock';
import { ChannelListeners, type RedisLink, type RedisLinkOptions } from './redis-contract';
import { isTransientReply, KvUnavailableError } from './unavailable';

/**
 * A link to a Redis Cluster through ioredis (Bun's RedisClient has no cluster support):
 * it learns the slot map from the seed node, follows MOVED and ASK redirects, and routes
 * each command, scripts included, by its first key. svc's multi-key scripts keep their
 * keys in one slot with a `{account}` hash tag. No offline queue and a command deadline,
 * so a request fails fast with 503 while the cluster is unreachable; reconnection never
 * gives up. The deadline is kept on a LoopClock, not by ioredis's `commandTimeout`, whose
 * timers expired commands whose replies were waiting behind a busy event loop.
 */
export async function connectCluster(url: string, opts: RedisLinkOptions): Promise<RedisLink> {
  const u = new URL(url);
  const seed = { host: u.hostname, port: Number(u.port || 6379) };
  const auth = { username: decodeURIComponent(u.username) || undefined, password: decodeURIComponent(u.password) || undefined };
  const cluster = new Cluster([seed], {
    enableOfflineQueue: false,
    clusterRetryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 10), opts.reconnectMaxDelayMs),
    // Retried briefly (a slot map refresh closes connections, a resharding answers TRYAGAIN, a
    // failover takes a moment), but at most 8 times: a cluster without quorum or a master
    // that is gone gives a retryable 503 within ~0.8 s per command, never seconds.
    maxRedirections: 8,
    retryDelayOnClusterDown: 100,
    retryDelayOnFailover: 100,
    retryDelayOnTryAgain: 50,
    slotsRefreshTimeout: opts.connectTimeoutMs,
    redisOptions: {
      ...auth,
      tls: u.protocol === 'rediss:' ? {} : undefined,
      connectTimeout: opts.connectTimeoutMs,
      maxRetriesPerRequest: 1,
    },
  });
  const listeners = new ChannelListeners();
  const reconnected: (() => void)[] = [];
  let wasReady = false;
  cluster.on('ready', () => {
    if (wasReady) for (const fn of reconnected) fn();
    wasReady = true;
  });
  // ioredis reports connection trouble as events; it reconnects by itself.
  cluster.on('error', () => {});
  cluster.on('message', (channel: string, message: string) => listeners.dispatch(channel, message));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`redis cluster: not ready after ${opts.connectTimeoutMs * 5} ms`)),
      opts.connectTimeoutMs * 5,
    );
    cluster.once('ready', () => (clearTimeout(timer), resolve()));
  });

  const unavailable = (cause?: unknown) => new KvUnavailableError(opts.retryAfterSeconds, cause);
  const deadlines = new CommandDeadlines(opts.commandTimeoutMs);
  const timedOut = () => unavailable(new Error(`no answer within ${opts.commandTimeoutMs} ms (redis.commandTimeoutMs)`));
  async function send(command: string, args: string[]): Promise<unknown> {
    if (cluster.status !== 'ready') throw unavailable();
    try {
      return await deadlines.within(cluster.call(command, ...args), timedOut);
    } catch (error) {
      if (error instanceof KvUnavailableError) throw error;
      const message = String((error as Error)?.message ?? error);
      if ((error as Error)?.name === 'ReplyError' && !isTransientReply(message)) throw error;
      throw unavailable(error);
    }
  }

  return {
    topology: 'cluster',
    get ready() {
      return cluster.status === 'ready';
    },
    send,
    async publish(channel, message) {
      await send('PUBLISH', [channel, message]);
    },
    async subscribe(channel, onMessage) {
      if (listeners.add(channel, onMessage)) await cluster.subscribe(channel);
      return async () => {
        if (listeners.remove(channel, onMessage)) await cluster.unsubscribe(channel).catch(() => {});
      };
    },
    onReconnect: (fn) => void reconnected.push(fn),
    async close() {
      deadlines.stop();
      cluster.disconnect();
    },
  };
}
