import { luaScript } from '../kv/scripts';
import { RATE_LUA, rateTtl } from '../limits/redis-scripts';
import { WINDOW_MS } from '../limits/store';

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
const DROP_REC = `
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
`;
/** The hold-dropping helpers (Lua), defined only on the paths that need them. */
export const DROP_HOLD = `${DROP_REC}
local function drop_hold(hs, hr, he, id) return drop_rec(hs, hr, he, id, redis.call('HGET', hr, id)) end
local function drop_expired(hs, hr, he, now)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', he, '-inf', now)) do drop_hold(hs, hr, he, id) end
end
`;

/**
 * One or more settlements of one account (a batch: the settlements of its requests that
 * ended within a few ms on this instance, src/billing/settle-batcher.ts), in one round trip.
 * KEYS: hsum, hreq, hexp, the account's unwritten-charges hash, then per settlement: its done
 * marker, its mirror, its key counter (only with a counter TTL argument), its rate-limit
 * window's hash (only with a token correction other than '0').
 * ARGV, 9 per settlement: requestId, currency, amount, the counter's TTL ms ('' without a
 * counter, '0' for none), settledTtlMs, onlyIfHeld '1'/'0', token correction ('0' for none),
 * unwritten ttl ms ('0': no ledger row), the unwritten mark's value (the charge and its
 * journal's name).
 * Exactly once per request id. Returns, per settlement, 1 and "currency|amount" when this
 * call charged, 0 and the earlier result otherwise. A charge with a ledger row is marked
 * unwritten in the same step (until the writer that queued it commits it), so an account
 * deletion on any instance sees charges still queued anywhere. With onlyIfHeld (a settlement
 * replayed after an outage) the mirror and counter change only while the hold is still there:
 * without it, Redis lost its data, and the mirror is rebuilt from the database, where the
 * outbox writes the charge. The token correction (actual tokens less those reserved) goes to
 * the window the tokens were reserved in (never below 0).
 */
export const SETTLE = luaScript(`
local call = redis.call
local hs, hr, he, unw = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
-- First pass: each settlement's keys, and one read of all done markers and mirrors, and one of
-- all hold records: a command per batch, not per settlement.
local items, reads, rids, k = {}, {}, {}, 5
for a = 0, #ARGV - 9, 9 do
  local cttl, delta = ARGV[a + 4], ARGV[a + 7]
  local it = {a = a, done = KEYS[k], bal = KEYS[k + 1]}
  it.ctr = cttl ~= '' and KEYS[k + 2] or nil
  it.rate = delta ~= '0' and KEYS[k + (it.ctr and 3 or 2)] or nil
  k = k + 2 + (it.ctr and 1 or 0) + (it.rate and 1 or 0)
  items[#items + 1] = it
  reads[#reads + 1] = it.done
  reads[#reads + 1] = it.bal
  rids[#rids + 1] = ARGV[a + 1]
end
local read = call('MGET', unpack(reads))
local recs = call('HMGET', hr, unpack(rids))
-- What the batch takes off, summed: hsum fields, mirrors, rate windows; ids to drop.
local held, mirrors, rates, dropped, marks, seen = {}, {}, {}, {}, {}, {}
local out, mark = {}, '0'
for i, it in ipairs(items) do
  local a = it.a
  local rid, amt = ARGV[a + 1], ARGV[a + 3]
  local earlier = read[2 * i - 1] or seen[rid]
  if earlier then
    out[#out + 1] = 0
    out[#out + 1] = earlier
  else
    local res = ARGV[a + 2]..'|'..amt
    seen[rid] = res
    local rec = recs[i]
    if rec or ARGV[a + 6] ~= '1' then
      dropped[#dropped + 1] = rid
      if rec then
        local cur, ramt, kf = string.match(rec, '^([^|]*)|([^|]*)|(.*)$')
        if ramt ~= '0' then
          held[cur] = (held[cur] or 0) + ramt
          if kf ~= '' then held[kf] = (held[kf] or 0) + ramt end
        end
      end
      if read[2 * i] then mirrors[it.bal] = (mirrors[it.bal] or 0) + amt end
      if it.ctr then
        local v = call('INCRBY', it.ctr, amt)
        if v == amt + 0 and ARGV[a + 4] + 0 > 0 then call('PEXPIRE', it.ctr, ARGV[a + 4]) end
      end
    end
    if it.rate then rates[it.rate] = (rates[it.rate] or 0) + ARGV[a + 7] end
    call('SET', it.done, res, 'PX', ARGV[a + 5])
    if ARGV[a + 8] ~= '0' then
      marks[#marks + 1] = rid
      marks[#marks + 1] = ARGV[a + 9]
      mark = ARGV[a + 8]
    end
    out[#out + 1] = 1
    out[#out + 1] = res
  end
end
-- Amounts go back to Redis as integers written in full (%d), never in exponent notation.
for field, sum in pairs(held) do
  local left = call('HINCRBY', hs, field, string.format('%d', -sum))
  if string.sub(field, 1, 2) == 'k:' and left <= 0 then call('HDEL', hs, field) end
end
if #dropped > 0 then
  call('HDEL', hr, unpack(dropped))
  call('ZREM', he, unpack(dropped))
end
for key, sum in pairs(mirrors) do call('DECRBY', key, string.format('%d', sum)) end
-- A token correction goes to the window the tokens were reserved in (never below 0). One
-- command where EXISTS and HINCRBY were two: the meter corrects only the current window, whose
-- hash exists unless Redis lost it; then the increment created it without a TTL, and the count
-- equals the correction: it gets the window's TTL (as it does when the count was 0, which only
-- lets a finished window's hash live a minute longer).
for key, sum in pairs(rates) do
  local d = string.format('%d', sum)
  local t = call('HINCRBY', key, 't', d)
  if t == sum then call('PEXPIRE', key, '${rateTtl(WINDOW_MS)}') end
  if t < 0 then call('HSET', key, 't', '0') end
end
if #marks > 0 then
  call('HSET', unw, unpack(marks))
  -- One TTL for the batch's marks (every settlement gives the same one).
  call('PEXPIRE', unw, mark)
end
return out
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
