import { luaScript } from '../kv/scripts';
import { RATE_LUA } from '../limits/redis-scripts';

/**
 * Lua scripts of the Redis billing store; each is one atomic round trip. Every key a script
 * touches is passed in KEYS and carries the account's hash tag, so all of them live in one
 * slot of a Redis Cluster. Key layout under `<prefix>bill:{<account>}:`: `bal:<currency>`
 * the live balance mirror (micro-units), `hsum` (currency -> sum of live holds, and
 * `k:<counter key>` -> the holds counted against a key limit), `hreq` (request id ->
 * "currency|amount|hsum field of the key limit"), `hexp` (ZSET request id -> expiry ms),
 * `done:<request id>` ("currency|charged"), `applied:<credit id>`, `ix` (the expiry at which
 * the account was last written to the global hold index, never later than its earliest hold,
 * so RESERVE reads its holds only once it is due), and the key-limit counters
 * `kc:<key>:<period>:<window start>:<class>`. The rate limiter's window hashes
 * (`<prefix>rl:{<account>}:...`, src/limits/redis-scripts.ts) carry the same tag, so the
 * reserve and settle scripts count the rate limits too.
 * Amounts cross into Lua as decimal strings and are concatenated as strings, never via
 * tostring(number), which would switch to exponent notation above 1e14.
 */

// Drops one hold record (shared by the sweeps, settle and release); drop_rec takes the record
// (its hreq value, or false) when the caller has read it already. hs, hr, he: hsum, hreq, hexp.
const DROP_HOLD = `
local function drop_rec(hs, hr, he, id, rec)
  if not rec then redis.call('ZREM', he, id) return nil end
  local cur, amt, kf = string.match(rec, '^([^|]*)|([^|]*)|(.*)$')
  if amt ~= '0' then
    redis.call('HINCRBY', hs, cur, '-'..amt)
    if kf ~= '' and redis.call('HINCRBY', hs, kf, '-'..amt) <= 0 then redis.call('HDEL', hs, kf) end
  end
  redis.call('HDEL', hr, id)
  redis.call('ZREM', he, id)
  return cur
end
local function drop_hold(hs, hr, he, id) return drop_rec(hs, hr, he, id, redis.call('HGET', hr, id)) end
local function drop_expired(hs, hr, he, now)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', he, '-inf', now)) do drop_hold(hs, hr, he, id) end
end
`;

/**
 * The meter's admission in one round trip: the request's rate-limit count, then its hold.
 * KEYS: hsum, hreq, hexp, the index marker `ix`, the rate-limit window's hash (hsum again
 * without a rate part), the nReport report mirrors, then per candidate its mirror and its
 * key counter (hsum again when the key has no limit).
 * ARGV: requestId, now, expiresAt, nReport, nCandidates, the rate part (rpm or '' for none,
 * tpm or '', tokens to reserve, window ttl), then per candidate (currency, amount, limit or '').
 * Returns {status, index, rate refusal, requests, tokens, index score, balances...}: status
 * 0 held, 1 a mirror or counter is missing, 2 insufficient, 3 key limit (index = the
 * candidate), 4 refused by the rate limit (nothing taken, no hold). A rate refusal wins. The
 * request is counted whenever the rate limit admits it; its tokens are kept only with a hold
 * (or a missing mirror: the meter initialises it and reserves again, and gives the tokens
 * back itself if that fails), but the reply counts them as the headers show them.
 * The index score, when not 0, is the account's earliest hold expiry, to be written to the
 * global hold index (INDEX_HOLD): only when the marker says the index may not cover it.
 */
export const RESERVE = luaScript(`${DROP_HOLD}${RATE_LUA}
local hs, hr, he, ixk, rk = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local rid, now = ARGV[1], ARGV[2]
local nrep, ncand = tonumber(ARGV[4]), tonumber(ARGV[5])
local rated = ARGV[6] ~= ''
local rtok = '0'
local req0, tok0, req, tok = 0, 0, 0, 0
if rated then
  local refused
  refused, req0, tok0 = rate_check(rk, ARGV[6], ARGV[7], ARGV[8])
  if refused ~= 0 then return {4, 0, refused, req0, tok0, 0} end
  req, tok = req0 + 1, tok0
  if ARGV[7] ~= '' then
    rtok = ARGV[8]
    tok = tok + tonumber(rtok)
  end
end
local function counted(tokens)
  if rated then rate_take(rk, ARGV[9], req0, tok0, tokens) end
end
-- Every string the script may read, in one MGET (each key once: a candidate's mirror is often
-- a report mirror): the index marker, the mirrors, the key counters. Reads only, so a value
-- read here but never reached changes nothing.
local names, at = {}, {}
local function want(k)
  if not at[k] then
    names[#names + 1] = k
    at[k] = #names
  end
end
want(ixk)
for r = 1, nrep do want(KEYS[5 + r]) end
for c = 1, ncand do
  want(KEYS[4 + nrep + c * 2])
  if ARGV[9 + c * 3] ~= '' then want(KEYS[5 + nrep + c * 2]) end
end
local vals = redis.call('MGET', unpack(names))
local function val(k) return vals[at[k]] end
-- The marker is never later than the account's earliest hold (it is only ever set to the
-- earliest, a hold earlier than it moves it, a dropped hold only makes the earliest later),
-- so while it is not due no hold is, and none needs dropping.
local ix = vals[1]
local due = not ix or tonumber(ix) <= tonumber(now)
if due then drop_expired(hs, hr, he, now) end
local bals = {}
for r = 1, nrep do
  local v = val(KEYS[5 + r])
  if not v then counted(rtok) return {1, 0, 0, req, tok, 0} end
  bals[r] = v
end
-- The holds of every candidate's currency and key limit, in one HMGET.
local fields, kfs, nf = {}, {}, ncand
for c = 1, ncand do
  fields[c] = ARGV[7 + c * 3]
  if ARGV[9 + c * 3] ~= '' then
    nf = nf + 1
    kfs[c] = nf
    fields[nf] = 'k:'..KEYS[5 + nrep + c * 2]
  end
end
local held = nf > 0 and redis.call('HMGET', hs, unpack(fields)) or {}
local limited = -1
for c = 1, ncand do
  local balk, ck = KEYS[5 + nrep + c * 2 - 1], KEYS[5 + nrep + c * 2]
  local j = 9 + (c - 1) * 3
  local cur, amt, lim = ARGV[j + 1], ARGV[j + 2], ARGV[j + 3]
  local bal = val(balk)
  if not bal then counted(rtok) return {1, 0, 0, req, tok, 0} end
  local h = tonumber(held[c] or '0')
  if tonumber(bal) - h >= tonumber(amt) then
    local fits = true
    local kf = ''
    if lim ~= '' then
      kf = 'k:'..ck
      local spent = val(ck)
      if not spent then counted(rtok) return {1, 0, 0, req, tok, 0} end
      local kh = tonumber(held[kfs[c]] or '0')
      if tonumber(spent) + kh + tonumber(amt) > tonumber(lim) then
        fits = false
        if limited < 0 then limited = c - 1 end
      end
    end
    if fits then
      if kf ~= '' then redis.call('HINCRBY', hs, kf, amt) end
      redis.call('HINCRBY', hs, cur, amt)
      redis.call('HSET', hr, rid, cur..'|'..amt..'|'..kf)
      redis.call('ZADD', he, ARGV[3], rid)
      counted(rtok)
      local index = 0
      -- Not due, this hold is the new earliest exactly when it is earlier than the marker.
      if due or tonumber(ARGV[3]) < tonumber(ix) then
        index = redis.call('ZRANGE', he, 0, 0, 'WITHSCORES')[2]
        redis.call('SET', ixk, index)
      end
      return {0, c - 1, 0, req, tok, index, unpack(bals)}
    end
  end
end
counted('0')
if limited >= 0 then return {3, limited, 0, req, tok, 0, unpack(bals)} end
return {2, 0, 0, req, tok, 0, unpack(bals)}
`);

/**
 * KEYS: hsum, hreq, hexp, done marker, mirror, key counter (hsum again when none), the
 * rate-limit window's hash (hsum again when none), the account's unwritten-charges hash.
 * ARGV: requestId, currency, amount, hasCounter '1'/'0', counterTtlMs, settledTtlMs,
 * onlyIfHeld '1'/'0', token correction ('0' for none), unwritten ttl ms ('0': no ledger row),
 * the unwritten mark's value (the charge and its journal's name).
 * Exactly once per request id. Returns {1, "currency|amount"} when this call charged, {0, the
 * earlier result} otherwise. A charge with a ledger row is marked unwritten in the same step
 * (until the writer that queued it commits it), so an account deletion on any instance sees
 * charges still queued anywhere. With onlyIfHeld (a settlement replayed after an outage) the
 * mirror and counter change only while the hold is still there: without it, Redis lost its
 * data, and the mirror is rebuilt from the database, where the outbox writes the charge.
 * The token correction (actual tokens less those reserved) goes to the window the tokens
 * were reserved in, if it still exists.
 */
export const SETTLE = luaScript(`${DROP_HOLD}${RATE_LUA}
local hs, hr, he, donek, balk, ck = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
-- The done marker and the mirror in one read (dropping the hold leaves the mirror alone).
local read = redis.call('MGET', donek, balk)
if read[1] then return {0, read[1]} end
local res = ARGV[2]..'|'..ARGV[3]
local rec = redis.call('HGET', hr, ARGV[1])
if rec or ARGV[7] ~= '1' then
  drop_rec(hs, hr, he, ARGV[1], rec)
  if read[2] then redis.call('DECRBY', balk, ARGV[3]) end
  if ARGV[4] == '1' then
    local v = redis.call('INCRBY', ck, ARGV[3])
    if v == tonumber(ARGV[3]) and tonumber(ARGV[5]) > 0 then redis.call('PEXPIRE', ck, ARGV[5]) end
  end
end
rate_correct(KEYS[7], ARGV[8])
redis.call('SET', donek, res, 'PX', ARGV[6])
if KEYS[8] and ARGV[9] and ARGV[9] ~= '0' then
  redis.call('HSET', KEYS[8], ARGV[1], ARGV[10] or '1')
  redis.call('PEXPIRE', KEYS[8], ARGV[9])
end
return {1, res}
`);

/**
 * KEYS: hsum, hreq, hexp, done marker, the rate-limit window's hash (hsum again when none).
 * ARGV: requestId, settledTtlMs, token correction ('0' for none: all reserved tokens given back).
 * Returns the settlement if one happened, else nil.
 */
export const RELEASE = luaScript(`${DROP_HOLD}${RATE_LUA}
local done = redis.call('GET', KEYS[4])
if done then return done end
local cur = drop_hold(KEYS[1], KEYS[2], KEYS[3], ARGV[1]) or 'USD'
rate_correct(KEYS[5], ARGV[3])
redis.call('SET', KEYS[4], cur..'|0', 'PX', ARGV[2])
return false
`);

/**
 * KEYS: hsum, hreq, hexp, index marker. ARGV: now. Drops expired holds; returns the earliest
 * expiry left, or -1, and leaves it in the marker (the sweep then moves the index entry there).
 */
export const SWEEP_HOLDS = luaScript(`${DROP_HOLD}
drop_expired(KEYS[1], KEYS[2], KEYS[3], ARGV[1])
local first = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
if #first == 0 then
  redis.call('DEL', KEYS[4])
  return -1
end
redis.call('SET', KEYS[4], first[2])
return first[2]
`);

/**
 * KEYS: the hold index. ARGV: account, its earliest hold expiry, now. Indexes the account at
 * that expiry unless it is indexed earlier and not yet due; a due entry is replaced, so a
 * sweep that is between its two steps for this account leaves the new entry alone.
 */
export const INDEX_HOLD = luaScript(`
local cur = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not cur or tonumber(cur) <= tonumber(ARGV[3]) or tonumber(ARGV[2]) < tonumber(cur) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
end
return 1
`);

/** KEYS: the hold index. ARGV: account, the score the sweep saw, next expiry or -1. Moves or drops the entry unless a reserve changed it meanwhile. */
export const REINDEX_HOLDS = luaScript(`
if redis.call('ZSCORE', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
if ARGV[3] == '-1' then redis.call('ZREM', KEYS[1], ARGV[1]) else redis.call('ZADD', KEYS[1], 'XX', ARGV[3], ARGV[1]) end
return 1
`);

/** KEYS: mirrors. ARGV: their values. SET-if-absent each mirror. */
export const INIT_BALANCES = luaScript(`
for i = 1, #KEYS do redis.call('SET', KEYS[i], ARGV[i], 'NX') end
return 1
`);

/** KEYS: mirror, applied marker. ARGV: amount, markerTtlMs. Adds once, and only to an existing mirror. */
export const ADD_IF_MIRRORED = luaScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if not redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[2]) then return 0 end
redis.call('INCRBY', KEYS[1], ARGV[1])
return 1
`);

/** KEYS: mirror, applied marker. ARGV: amount. Undoes ADD_IF_MIRRORED. */
export const UNDO_ADD = luaScript(`
if redis.call('DEL', KEYS[2]) == 1 then redis.call('DECRBY', KEYS[1], ARGV[1]) end
return 1
`);

/** KEYS: lock. ARGV: token. Releases a lock if it is still ours. */
export const UNLOCK = luaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`);
