import { Ratelimit } from '@upstash/ratelimit';
import type { RedisCommands } from '../kv/redis-link';
import { luaScript, runScript, upstashAdapter } from './redis-adapter';
import { WINDOW_MS, type AdmitResult, type LimitStore } from './store';

// Tokens are not counted with @upstash/ratelimit: its scripts cannot take a correction
// without a limit check (a request that used more than it reserved must still be charged
// to the window), and a refund would land in whatever window is current at settle time.
// So the token dimension is this small script with the same fixed-window semantics and key
// layout (`<prefix>:<identifier>:<window>`), corrected in the window it was reserved in.
const RESERVE_TOKENS = luaScript(`local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local limit = tonumber(ARGV[1])
local reserve = tonumber(ARGV[2])
local need = reserve
if need < 1 then need = 1 end
if used + need > limit then return {0, used} end
local v = redis.call('INCRBY', KEYS[1], reserve)
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return {1, v}`);

const CORRECT_TOKENS = luaScript(`if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local v = redis.call('INCRBY', KEYS[1], ARGV[1])
if v < 0 then redis.call('SET', KEYS[1], '0', 'KEEPTTL') end
return v`);

/**
 * The store for many instances: requests are counted by @upstash/ratelimit's fixed-window
 * algorithm (one Ratelimit per limit value, no ephemeral cache so a raised limit applies at
 * once, no analytics), tokens by the script above. Both go out in the same tick, so Bun's
 * auto-pipelining makes one round trip of them. Uses the real clock (as Upstash does).
 *
 * Upstash's fixed window counts a request before comparing, so a refused request is given
 * back (`rate: -1`) right away, and a request refused on tokens gives back its request
 * slot the same way (it holds it for that one extra round trip); a request refused on
 * requests gives back the tokens it reserved. At rest a refusal consumes nothing.
 */
export function createRedisLimitStore(client: RedisCommands, prefix: string, opts: { windowMs?: number } = {}): LimitStore {
  const windowMs = opts.windowMs ?? WINDOW_MS;
  const redis = upstashAdapter(client);
  const limiters = new Map<number, Ratelimit>();
  const tokenPrefix = `${prefix}rl:tok:`;

  function requestsLimiter(rpm: number): Ratelimit {
    let limiter = limiters.get(rpm);
    if (!limiter) {
      limiter = new Ratelimit({
        redis,
        limiter: Ratelimit.fixedWindow(rpm, `${windowMs} ms`),
        prefix: `${prefix}rl:req`,
        analytics: false,
        ephemeralCache: false,
        timeout: 0,
        enableProtection: false,
      });
      limiters.set(rpm, limiter);
    }
    return limiter;
  }

  return {
    async admit(key, rpm, tokens): Promise<AdmitResult> {
      const at = Date.now();
      const window = Math.floor(at / windowMs);
      const tokenKey = `${tokenPrefix}${key}:${window}`;
      const limiter = requestsLimiter(rpm);
      const [req, tok] = await Promise.all([
        limiter.limit(key),
        tokens
          ? (runScript(client, RESERVE_TOKENS, [tokenKey], [tokens.limit, tokens.reserve, windowMs + 1_000]) as Promise<[number, number]>)
          : null,
      ]);
      const tokensOk = tok === null || tok[0] === 1;
      let requests = rpm - req.remaining;
      let used = tok ? tok[1] : 0;
      let refused: AdmitResult['refused'] = null;
      if (!req.success || !tokensOk) {
        refused = req.success ? 'TPM' : 'RPM';
        const undo: Promise<unknown>[] = [limiter.limit(key, { rate: -1 })];
        if (req.success) requests -= 1;
        if (tok && tokensOk && tokens) {
          undo.push(runScript(client, CORRECT_TOKENS, [tokenKey], [-tokens.reserve]));
          used -= tokens.reserve;
        }
        await Promise.all(undo);
      }
      return { refused, requests, tokens: used, window, resetAt: req.reset || (window + 1) * windowMs, at };
    },
    async correctTokens(key, window, delta) {
      if (delta === 0 || window < Math.floor(Date.now() / windowMs)) return;
      await runScript(client, CORRECT_TOKENS, [`${tokenPrefix}${key}:${window}`], [delta]);
    },
    async close() {
      limiters.clear();
    },
  };
}
