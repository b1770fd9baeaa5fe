import { luaScript } from '../kv/scripts';
import type { AdmitResult, LimitKey, RateCount } from './store';

/**
 * The fixed-window counters of the rate limiter in Lua, shared by the limit store's own
 * scripts and the billing store's reserve and settle scripts (which fold the rate limit into
 * the meter's one round trip). One hash per key and window: `r` requests, `t` tokens.
 * The algorithm is @upstash/ratelimit's fixed window (counters per epoch-aligned window,
 * expiring after it), except that a request is compared before it is counted, so a refusal
 * consumes nothing and needs no second command to give its count back.
 */
export const RATE_LUA = `
local function rate_check(rk, rpm, tpm, reserve)
  local c = redis.call('HMGET', rk, 'r', 't')
  local req, tok = tonumber(c[1] or '0'), tonumber(c[2] or '0')
  if req + 1 > tonumber(rpm) then return 1, req, tok end
  if tpm ~= '' and tok + math.max(tonumber(reserve), 1) > tonumber(tpm) then return 2, req, tok end
  return 0, req, tok
end
-- req and tok: the counts rate_check read in the same script, so one HSET writes both.
local function rate_take(rk, ttl, req, tok, tokens)
  if tokens == '0' then
    redis.call('HSET', rk, 'r', string.format('%d', req + 1))
  else
    redis.call('HSET', rk, 'r', string.format('%d', req + 1), 't', string.format('%d', tok + tonumber(tokens)))
  end
  if req == 0 then redis.call('PEXPIRE', rk, ttl) end
end
local function rate_correct(rk, delta)
  if delta == '0' or redis.call('EXISTS', rk) == 0 then return end
  if redis.call('HINCRBY', rk, 't', delta) < 0 then redis.call('HSET', rk, 't', '0') end
end
`;

/**
 * KEYS: the window's hash. ARGV: rpm, tpm ('' without a token limit), tokens to reserve, ttl ms.
 * Returns {refusal (0 none, 1 requests, 2 tokens), requests, tokens} as the headers show them.
 */
export const ADMIT_RATE = luaScript(`${RATE_LUA}
local refused, req, tok = rate_check(KEYS[1], ARGV[1], ARGV[2], ARGV[3])
if refused ~= 0 then return {refused, req, tok} end
if ARGV[2] == '' then
  rate_take(KEYS[1], ARGV[4], req, tok, '0')
  return {0, req + 1, tok}
end
rate_take(KEYS[1], ARGV[4], req, tok, ARGV[3])
return {0, req + 1, tok + tonumber(ARGV[3])}
`);

/** KEYS: the window's hash. ARGV: delta. Adds to its tokens (never below 0) if the window still exists. */
export const CORRECT_TOKENS = luaScript(`${RATE_LUA}
rate_correct(KEYS[1], ARGV[1])
return 1
`);

/** The hash of a key's window; the account's hash tag puts it in the Redis Cluster slot of the account's billing keys. */
export const rateKey = (prefix: string, key: LimitKey, window: number) => `${prefix}rl:{${key.account}}:${key.scope}:${window}`;

/** How long a window's hash lives after its first request: the window, and a second for late corrections. */
export const rateTtl = (windowMs: number) => String(windowMs + 1_000);

/** Appends the ARGV of `rate_check`/`rate_take` for a count (rpm, tpm or '', reserve, ttl). */
export function pushRateArgs(args: string[], count: RateCount, ttl: string): void {
  args.push(String(count.rpm), count.tokens ? String(count.tokens.limit) : '', count.tokens ? String(count.tokens.reserve) : '0', ttl);
}

const REFUSALS = [null, 'RPM', 'TPM'] as const;

/** The result of a count from a script's reply: refusal, requests and tokens at `offset`. */
export function rateResult(reply: readonly unknown[], offset: number, at: number, window: number, windowMs: number): AdmitResult {
  return {
    refused: REFUSALS[Number(reply[offset])] ?? null,
    requests: Number(reply[offset + 1]),
    tokens: Number(reply[offset + 2]),
    window,
    resetAt: (window + 1) * windowMs,
    at,
  };
}
