import { Type as T, type Static } from '@sinclair/typebox';
import { parseConfigSection } from '../config';
import { tooManyRequests, type ServiceError } from '../http/errors';
import type { KeyValueStore } from '../kv/store';
import { countAbuseBlock } from '../metrics';
import { failureCounter } from './abuse-counter';

/** The config's free-form `abuseGuard` section (spec 7: > 20 failures in 30 s block for 30 s). */
export const AbuseGuardConfigSchema = T.Object(
  {
    enabled: T.Boolean({ default: true }),
    maxFailures: T.Integer({ minimum: 1, default: 20, description: 'More failures than this within the window block the caller' }),
    windowSeconds: T.Integer({ minimum: 1, maximum: 3600, default: 30 }),
    blockSeconds: T.Integer({ minimum: 1, maximum: 86_400, default: 30 }),
    trustForwardedFor: T.Boolean({
      default: false,
      description: 'Take the client IP from the last X-Forwarded-For hop (only behind a trusted proxy)',
    }),
  },
  { additionalProperties: false },
);

/** The validated `abuseGuard` section. */
export type AbuseGuardConfig = Static<typeof AbuseGuardConfigSchema>;

/** Validates `config.abuseGuard` (absent means defaults); throws ConfigError naming the field. */
export function parseAbuseGuardConfig(raw: Record<string, unknown> | undefined): AbuseGuardConfig {
  return parseConfigSection(AbuseGuardConfigSchema, raw, 'abuseGuard');
}

/**
 * Who a failure is charged to: `a:<accountId>` for a valid credential, `k:<sha256>` for a
 * credential that did not authenticate, `ip:<address>` for a request with none.
 */
export type AbuseIdentity = string;

/** The pub/sub channel on which instances announce blocks to each other. */
export const ABUSE_BLOCK_CHANNEL = 'abuse:blocks';

/** The block body of spec 7; the wording is the reference's (API-NOTES 12), with the configured numbers. */
export function blockMessage(config: AbuseGuardConfig): string {
  return `Too many failed attempts (> ${config.maxFailures}) resulting in a non-success status code. Please wait ${config.blockSeconds}s and try again.`;
}

/** The failure counter and the block list of spec 7, shared by every instance through the KV store. */
export interface AbuseGuard {
  readonly config: AbuseGuardConfig;
  /** Epoch ms at which the block of `identity` ends, or 0 when it is not blocked. In-process only. */
  blockedUntil(identity: AbuseIdentity): number;
  /** The same for an account id, without building its identity string (the per-request check). */
  accountBlockedUntil(accountId: string): number;
  /** True while any credential or IP block is known here (so the early check can skip hashing). */
  hasAnonymousBlocks(): boolean;
  /** The 429 for a blocked identity, with Retry-After and x-ratelimit-reset-requests. */
  refusal(until: number): ServiceError;
  /** Counts one non-success response; true when this failure started a block. */
  countFailure(identity: AbuseIdentity): Promise<boolean>;
  /** Resolves when the block announcements of other instances are being received. */
  readonly ready: Promise<void>;
  /** Registers work in flight (the after-response hook), so `idle` waits for it. */
  track<R>(work: Promise<R>): Promise<R>;
  /** Resolves when no failure is being counted (tests read their own writes). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Creates the guard. Failures are counted in the KV store over a sliding window (this
 * bucket plus the weighted previous one), each in one atomic step (./abuse-counter.ts); a
 * block is written to the KV store with the count that starts it and announced
 * on a channel, and every instance keeps the blocks it heard of in a map, so checking a
 * request costs no KV round trip.
 */
export function createAbuseGuard(deps: { kv: KeyValueStore; now: () => number; config: AbuseGuardConfig }): AbuseGuard {
  const { kv, now, config } = deps;
  const windowMs = config.windowSeconds * 1000;
  const blockMs = config.blockSeconds * 1000;
  const accounts = new Map<AbuseIdentity, number>();
  const anonymous = new Map<AbuseIdentity, number>();
  const pending = new Set<Promise<unknown>>();
  const message = blockMessage(config);

  // Accounts are keyed by their bare id, so the check after auth builds no string.
  const entryOf = (identity: AbuseIdentity): [Map<string, number>, string] =>
    identity.startsWith('a:') ? [accounts, identity.slice(2)] : [anonymous, identity];

  function remember(identity: AbuseIdentity, until: number) {
    if (until <= now()) return;
    const [map, id] = entryOf(identity);
    if ((map.get(id) ?? 0) >= until) return;
    if (map.size >= 10_000) for (const [other, end] of map) if (end <= now()) map.delete(other);
    map.set(id, until);
  }

  function until(map: Map<string, number>, id: string): number {
    if (map.size === 0) return 0;
    const end = map.get(id);
    if (end === undefined) return 0;
    if (end > now()) return end;
    map.delete(id);
    return 0;
  }

  function onAnnouncement(text: string) {
    const space = text.lastIndexOf(' ');
    const until = Number(text.slice(space + 1));
    if (space > 0 && Number.isFinite(until)) remember(text.slice(0, space), until);
  }
  let unsubscribe: (() => Promise<void>) | null = null;
  const ready = kv.subscribe(ABUSE_BLOCK_CHANNEL, onAnnouncement).then((stop) => void (unsubscribe = stop));

  const countOnce = failureCounter(kv, { windowMs, blockMs, maxFailures: config.maxFailures });

  async function count(identity: AbuseIdentity): Promise<boolean> {
    const { started, blockedUntil } = await countOnce(identity, now());
    // Blocked elsewhere and the announcement was missed (this instance started later), or just blocked here.
    remember(identity, blockedUntil);
    if (started) await kv.publish(ABUSE_BLOCK_CHANNEL, `${identity} ${blockedUntil}`);
    return started;
  }

  function track<R>(work: Promise<R>): Promise<R> {
    pending.add(work);
    void work.finally(() => pending.delete(work)).catch(() => {});
    return work;
  }

  return {
    config,
    ready,
    blockedUntil: (identity) => until(...entryOf(identity)),
    accountBlockedUntil: (accountId) => until(accounts, accountId),
    hasAnonymousBlocks: () => anonymous.size > 0,
    refusal(end) {
      countAbuseBlock();
      const seconds = Math.max(1, Math.ceil((end - now()) / 1000));
      return tooManyRequests(message, { 'retry-after': String(seconds), 'x-ratelimit-reset-requests': String(Math.ceil(end / 1000)) });
    },
    countFailure: (identity) => track(count(identity)),
    track,
    async idle() {
      // After-response hooks start in a setImmediate queued before this one.
      await new Promise((resolve) => setImmediate(resolve));
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
    async close() {
      await ready.catch(() => {});
      await unsubscribe?.();
    },
  };
}
