import type { KeyValueStore } from '../kv/store';
import { tooManyRequests } from '../http/errors';

/** What the limit reads of Bun's server (absent under `app.handle`). */
export interface RequestIpSource {
  requestIP(request: Request): { address: string } | null;
}

/** The client IP: the last X-Forwarded-For hop when the operator trusts its proxy, else the socket's address. */
export function clientIp(request: Request, server: RequestIpSource | null, trustForwardedFor: boolean): string {
  if (trustForwardedFor) {
    const hops = request.headers.get('x-forwarded-for')?.split(',');
    const last = hops?.[hops.length - 1]?.trim();
    if (last) return last;
  }
  return server?.requestIP(request)?.address ?? 'unknown';
}

/**
 * A fixed one-minute window per client IP (top-ups: 10 a minute by default), counted in the
 * shared KV so every instance enforces the same budget. Throws 429 with Retry-After.
 */
export function ipRateLimit(kv: KeyValueStore, o: { name: string; perMinute: number; now: () => number }) {
  return async function limitIp(ip: string): Promise<void> {
    const now = o.now();
    const window = Math.floor(now / 60_000);
    const count = await kv.incrBy(`iplimit:${o.name}:${ip}:${window}`, 1, 60_000);
    if (count <= o.perMinute) return;
    const resetMs = (window + 1) * 60_000;
    throw tooManyRequests(`Rate limit exceeded: at most ${o.perMinute} requests per minute to this endpoint`, {
      'retry-after': String(Math.max(1, Math.ceil((resetMs - now) / 1000))),
      'x-ratelimit-limit-requests': String(o.perMinute),
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': String(Math.ceil(resetMs / 1000)),
    });
  };
}
