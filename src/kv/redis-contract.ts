import type { RedisConfig } from './redis-config';

/** What svc sends to Redis: one command with string arguments (Bun's `send`, ioredis's `call`). */
export interface RedisCommands {
  send(command: string, args: string[]): Promise<unknown>;
}

/**
 * A connection to Redis that survives outages of any length: commands fail at once with
 * KvUnavailableError while it is down (never queued, never hung past the command
 * timeout), and it reconnects on its own, forever, with subscriptions restored.
 */
export interface RedisLink extends RedisCommands {
  readonly topology: 'single' | 'cluster';
  /** Connected and answering now (health checks). */
  readonly ready: boolean;
  /** Broadcasts on a channel (every node of a cluster relays it). */
  publish(channel: string, message: string): Promise<void>;
  /** Listens on a channel; kept across reconnections. Returns the function that stops listening. */
  subscribe(channel: string, onMessage: (message: string) => void): Promise<() => Promise<void>>;
  /** Runs `fn` each time the connection comes back after an outage. */
  onReconnect(fn: () => void): void;
  close(): Promise<void>;
}

/** Options of a link: the `redis` config section. */
export type RedisLinkOptions = RedisConfig;

/** Channel listeners of a link, shared by both topologies. */
export class ChannelListeners {
  readonly byChannel = new Map<string, Set<(message: string) => void>>();

  add(channel: string, fn: (message: string) => void): boolean {
    const set = this.byChannel.get(channel) ?? new Set();
    const first = set.size === 0;
    set.add(fn);
    this.byChannel.set(channel, set);
    return first;
  }

  /** Removes a listener; true when the channel has none left. */
  remove(channel: string, fn: (message: string) => void): boolean {
    const set = this.byChannel.get(channel);
    if (!set) return false;
    set.delete(fn);
    if (set.size > 0) return false;
    this.byChannel.delete(channel);
    return true;
  }

  dispatch(channel: string, message: string) {
    for (const fn of this.byChannel.get(channel) ?? []) fn(message);
  }
}
