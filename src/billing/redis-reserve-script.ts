import { luaScript } from '../kv/scripts';
import { DROP_HOLD } from './redis-scripts';

/*
 * What the per-request scripts cost Redis (bench/redis-cost.ts, callgrind): every KEYS or
 * ARGV element is a string Redis parses and Lua interns (~1,000-1,800 instructions each), every
 * redis.call ~3,000-5,000, every tonumber of a string ~1,300 (strtod), every closure or table a
 * script builds adds to Lua's allocation and GC. So they take each key once, read
 * with unpack over KEYS/ARGV ranges instead of building tables, compare numbers through
 * arithmetic coercion (`x + 0`, no call), and define the hold-dropping helpers only on the
 * path that needs them.
 */

/**
 * What a group's admissions share (RESERVE_GROUP only): the strings (false when missing) and
 * hash fields this script's earlier calls read or wrote, so the later calls of one account read
 * them here instead of asking Redis again. Exact within one script: nothing else runs
 * meanwhile, and every write of an admission updates what it changed (a dropped hold forgets
 * the account's hold sums). RESERVE alone reads Redis directly: for one call these tables cost
 * Lua more than they save (callgrind, bench/redis-cost.ts --in-flight 1: 283-291k -> 335k
 * instructions a request).
 */
const GROUP_READS = `
local strs, fields = {}, {}
-- Appends to miss (made when needed) the names src[from .. to] that t does not know yet.
local function unknown(t, src, from, to, miss)
  for i = from, to do
    if t[src[i]] == nil then
      miss = miss or {}
      miss[#miss + 1] = src[i]
    end
  end
  return miss
end
-- Keeps in t each name of miss with its value read (false when missing).
local function remember(t, miss, got)
  for i = 1, #miss do t[miss[i]] = got[i] or false end
end
-- The fields of hash h named src[from .. to], reading in one HMGET those not known yet.
local function hfields(h, src, from, to)
  local t = fields[h]
  if not t then
    t = {}
    fields[h] = t
  end
  local miss = unknown(t, src, from, to, nil)
  if miss then remember(t, miss, call('HMGET', h, unpack(miss))) end
  return t
end
-- The strings at the keys first, KEYS[from .. to], as one list, reading in one MGET those not known yet.
local function strings(first, from, to)
  local miss = unknown(strs, KEYS, from, to, strs[first] == nil and {first} or nil)
  if miss then remember(strs, miss, call('MGET', unpack(miss))) end
  local v = {strs[first]}
  for i = from, to do v[#v + 1] = strs[KEYS[i]] end
  return v
end
local RT = {'r', 't'}
`;

/**
 * One admission, as a Lua function over a slice of KEYS and ARGV: `admit(k, a, nk, na)` reads
 * KEYS[k + 1 .. k + nk] and ARGV[a + 1 .. a + na], so RESERVE runs it over the whole of both and
 * RESERVE_GROUP over each call's part in turn. Its reply is the call's whole reply. `grouped`:
 * its reads go through GROUP_READS, and its writes update them; the decisions are the same
 * text (the hold sums by field name when grouped, by candidate from HMGET alone).
 */
function admitLua(grouped: boolean): string {
  const g = (cached: string, direct: string) => (grouped ? cached : direct);
  return `
local call = redis.call
${g(GROUP_READS, '')}
local function admit(k, a, nk, na)
local hs, rk, now, exp = KEYS[k + 1], KEYS[k + 5], ARGV[a + 2], ARGV[a + 3]
local rpm, tpm = ARGV[a + 4], ARGV[a + 5]
local n, e = ARGV[a + 8] + 0, ARGV[a + 9] + 0
-- The window's counts before (req, tok) and as the headers show them (rq, tk).
local req, tok, tokens, rq, tk = 0, 0, '0', 0, 0
if rpm ~= '' then
  ${g(
    `local c = hfields(rk, RT, 1, 2)
  req, tok = (c.r or 0) + 0, (c.t or 0) + 0`,
    `local c = call('HMGET', rk, 'r', 't')
  req, tok = (c[1] or 0) + 0, (c[2] or 0) + 0`,
  )}
  if req >= rpm + 0 then return {4, 0, 1, req, tok, 0} end
  if tpm ~= '' then
    tokens = ARGV[a + 6]
    local ask = tokens + 0
    if ask < 1 then ask = 1 end
    if tok + ask > tpm + 0 then return {4, 0, 2, req, tok, 0} end
  end
  rq, tk = req + 1, tok + tokens
end
local function counted(t)
  if rpm == '' then return end
  ${g(
    `local c = fields[rk]
  c.r = rq
  if t ~= '0' then c.t = tk end`,
    '',
  )}
  if t == '0' then
    call('HSET', rk, 'r', string.format('%d', rq))
  else
    call('HSET', rk, 'r', string.format('%d', rq), 't', string.format('%d', tk))
  end
  if req == 0 then call('PEXPIRE', rk, ARGV[a + 7]) end
end
-- Every string the script may read, in one MGET: the index marker, the mirrors, the key
-- counters. Reads only, so a value read here but never reached changes nothing.
local v = ${g(`strings(KEYS[k + 4], k + 6, k + nk)`, `call('MGET', KEYS[k + 4], unpack(KEYS, k + 6, k + nk))`)}
-- The marker is never later than the account's earliest hold (it is only ever set to the
-- earliest, a hold earlier than it moves it, a dropped hold only makes the earliest later),
-- so while it is not due no hold is, and none needs dropping.
local ix = v[1]
local due = not ix or ix + 0 <= now + 0
if due then
  ${DROP_HOLD}
  drop_expired(hs, KEYS[k + 2], KEYS[k + 3], now)
  ${g('fields[hs] = nil', '')}
end
-- Currencies, amounts and floors, then the limits block only when some candidate has a key counter.
local blocks = nk > 5 + n + e and 4 or 3
local bals = {}
for r = 1, na - 9 - blocks * n do
  local b = v[1 + ARGV[a + 9 + blocks * n + r]]
  if not b then counted(tokens) return {1, 0, 0, rq, tk, 0} end
  bals[r] = b
end
local held = n > 0 and ${g(`hfields(hs, ARGV, a + 10, a + 9 + n)`, `call('HMGET', hs, unpack(ARGV, a + 10, a + 9 + n))`)} or {}
local limited, kc = -1, 1 + n + e
for c = 1, n do
  local cur = ARGV[a + 9 + c]
  local bal, lim, ck = v[1 + c], blocks == 4 and ARGV[a + 9 + 3 * n + c] or '', nil
  if lim ~= '' then
    kc = kc + 1
    ck = kc
  end
  if not bal then counted(tokens) return {1, 0, 0, rq, tk, 0} end
  local amt = ARGV[a + 9 + n + c]
  if bal - (held[${g('cur', 'c')}] or 0) >= amt + ARGV[a + 9 + 2 * n + c] then
    local fits, kf = true, ''
    if ck then
      local spent = v[ck]
      if not spent then counted(tokens) return {1, 0, 0, rq, tk, 0} end
      kf = 'k:'..KEYS[k + ck + 4]
      if spent + (${g(`hfields(hs, {kf}, 1, 1)[kf]`, `call('HGET', hs, kf)`)} or 0) + amt > lim + 0 then
        fits = false
        if limited < 0 then limited = c - 1 end
      end
    end
    if fits then
      if ck then ${g('held[kf] = ', '')}call('HINCRBY', hs, kf, amt) end
      ${g('held[cur] = ', '')}call('HINCRBY', hs, cur, amt)
      call('HSET', KEYS[k + 2], ARGV[a + 1], cur..'|'..amt..'|'..kf)
      call('ZADD', KEYS[k + 3], exp, ARGV[a + 1])
      counted(tokens)
      local index = 0
      -- Not due, this hold is the new earliest exactly when it is earlier than the marker.
      if due or exp + 0 < ix + 0 then
        index = call('ZRANGE', KEYS[k + 3], 0, 0, 'WITHSCORES')[2]
        call('SET', KEYS[k + 4], index)
        ${g('strs[KEYS[k + 4]] = index', '')}
      end
      return {0, c - 1, 0, rq, tk, index, unpack(bals)}
    end
  end
end
counted('0')
if limited >= 0 then return {3, limited, 0, rq, tk, 0, unpack(bals)} end
return {2, 0, 0, rq, tk, 0, unpack(bals)}
end
`;
}

/**
 * The meter's admission in one round trip: the request's rate-limit count, then its hold.
 * KEYS: hsum, hreq, hexp, the index marker `ix`, the rate-limit window's hash (hsum again
 * without a rate part), the n candidates' mirrors, the e mirrors of reported currencies that
 * are no candidate's, then the key counter of each candidate with a key limit, in order.
 * ARGV: requestId, now, expiresAt, the rate part (rpm or '' for none, tpm or '', tokens to
 * reserve, window ttl), n, e, the n currencies, the n amounts, the n floors (free balance the
 * hold must leave, '0' for none), the n key limits ('' for none;
 * only when some candidate has one, that is when KEYS has counters), then per reported
 * currency its mirror's position (1-based, among the n + e mirrors).
 * Returns {status, index, rate refusal, requests, tokens, index score, balances...}: status
 * 0 held, 1 a mirror or counter is missing, 2 insufficient, 3 key limit (index = the
 * candidate), 4 refused by the rate limit (nothing taken, no hold). A rate refusal wins. The
 * request is counted whenever the rate limit admits it; its tokens are kept only with a hold
 * (or a missing mirror: the meter initialises it and reserves again, and gives the tokens
 * back itself if that fails), but the reply counts them as the headers show them. The report
 * mirrors are checked first; a candidate's mirror or counter only when reached.
 * The index score, when not 0, is the account's earliest hold expiry, to be written to the
 * global hold index (INDEX_HOLD): only when the marker says the index may not cover it.
 */
export const RESERVE = luaScript(`${admitLua(false)}
return admit(0, 0, #KEYS, #ARGV)
`);

/**
 * Several admissions of one account in one call, decided one after the other in the order
 * given, each exactly as RESERVE decides it alone (a later one sees what an earlier one took).
 * KEYS: each call's RESERVE keys, one call after the other. ARGV: per call, its number of keys,
 * its number of arguments, then its RESERVE arguments. Returns each call's RESERVE reply, in order.
 */
export const RESERVE_GROUP = luaScript(`${admitLua(true)}
local out, k, a = {}, 0, 0
while a < #ARGV do
  local nk, na = ARGV[a + 1] + 0, ARGV[a + 2] + 0
  out[#out + 1] = admit(k, a + 2, nk, na)
  k, a = k + nk, a + 2 + na
end
return out
`);
