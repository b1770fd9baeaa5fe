/**
 * Lua scripts of the Redis billing store; each is one atomic round trip. Every key a script
 * touches is passed in KEYS and carries the account's hash tag, so all of them live in one
 * slot of a Redis Cluster. Key layout under `<prefix>bill:{<account>}:`: `bal:<currency>`
 * the live balance mirror (micro-units), `hsum` (currency -> sum of live holds, and
 * `k:<counter key>` -> the holds counted against a key limit), `hreq` (request id ->
 * "currency|amount|hsum field of the key limit"), `hexp` (ZSET request id -> expiry ms),
 * `done:<request id>` ("currency|charged"), `applied:<credit id>`, and the key-limit
 * counters `kc:<key>:<period>:<window start>:<class>`.
 * Amounts cross into Lua as decimal strings and are concatenated as strings, never via
 * tostring(number), which would switch to exponent notation above 1e14.
 */

// Drops one hold record (shared by the sweeps, settle and release). hs, hr, he: hsum, hreq, hexp.
const DROP_HOLD = `
local function drop_hold(hs, hr, he, id)
  local rec = redis.call('HGET', hr, id)
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
local function drop_expired(hs, hr, he, now)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', he, '-inf', now)) do drop_hold(hs, hr, he, id) end
end
`;

/**
 * KEYS: hsum, hreq, hexp, the nReport report mirrors, then per candidate its mirror and its
 * key counter (hsum again when the key has no limit).
 * ARGV: requestId, now, expiresAt, counterTtlMs, nReport, nCandidates, then per candidate
 * (currency, amount, limit or '' for none).
 * Returns {0, index, balances...} held; {1} a mirror or counter is missing;
 * {2, 0, balances...} insufficient; {3, index, balances...} key limit.
 */
export const RESERVE = `${DROP_HOLD}
local hs, hr, he = KEYS[1], KEYS[2], KEYS[3]
local rid = ARGV[1]
drop_expired(hs, hr, he, ARGV[2])
local nrep, ncand = tonumber(ARGV[5]), tonumber(ARGV[6])
local bals = {}
for r = 1, nrep do
  local v = redis.call('GET', KEYS[3 + r])
  if not v then return {1} end
  bals[r] = v
end
local limited = -1
for c = 1, ncand do
  local balk, ck = KEYS[3 + nrep + c * 2 - 1], KEYS[3 + nrep + c * 2]
  local j = 6 + (c - 1) * 3
  local cur, amt, lim = ARGV[j + 1], ARGV[j + 2], ARGV[j + 3]
  local bal = redis.call('GET', balk)
  if not bal then return {1} end
  local h = tonumber(redis.call('HGET', hs, cur) or '0')
  if tonumber(bal) - h >= tonumber(amt) then
    local fits = true
    local kf = ''
    if lim ~= '' then
      kf = 'k:'..ck
      local spent = redis.call('GET', ck)
      if not spent then return {1} end
      local kh = tonumber(redis.call('HGET', hs, kf) or '0')
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
      return {0, c - 1, unpack(bals)}
    end
  end
end
if limited >= 0 then return {3, limited, unpack(bals)} end
return {2, 0, unpack(bals)}
`;

/**
 * KEYS: hsum, hreq, hexp, done marker, mirror, key counter (hsum again when none).
 * ARGV: requestId, currency, amount, hasCounter '1'/'0', counterTtlMs, settledTtlMs, onlyIfHeld '1'/'0'.
 * Exactly once per request id. Returns {1, "currency|amount"} when this call charged, {0, the
 * earlier result} otherwise. With onlyIfHeld (a settlement replayed after an outage) the
 * mirror and counter change only while the hold is still there: without it, Redis lost its
 * data, and the mirror is rebuilt from the database, where the outbox writes the charge.
 */
export const SETTLE = `${DROP_HOLD}
local hs, hr, he, donek, balk, ck = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local done = redis.call('GET', donek)
if done then return {0, done} end
local res = ARGV[2]..'|'..ARGV[3]
local held = redis.call('HEXISTS', hr, ARGV[1]) == 1
if held or ARGV[7] ~= '1' then
  drop_hold(hs, hr, he, ARGV[1])
  if redis.call('EXISTS', balk) == 1 then redis.call('DECRBY', balk, ARGV[3]) end
  if ARGV[4] == '1' then
    local v = redis.call('INCRBY', ck, ARGV[3])
    if v == tonumber(ARGV[3]) and tonumber(ARGV[5]) > 0 then redis.call('PEXPIRE', ck, ARGV[5]) end
  end
end
redis.call('SET', donek, res, 'PX', ARGV[6])
return {1, res}
`;

/** KEYS: hsum, hreq, hexp, done marker. ARGV: requestId, settledTtlMs. Returns the settlement if one happened, else nil. */
export const RELEASE = `${DROP_HOLD}
local done = redis.call('GET', KEYS[4])
if done then return done end
local cur = drop_hold(KEYS[1], KEYS[2], KEYS[3], ARGV[1]) or 'USD'
redis.call('SET', KEYS[4], cur..'|0', 'PX', ARGV[2])
return false
`;

/** KEYS: hsum, hreq, hexp. ARGV: now. Drops expired holds; returns the earliest expiry left, or -1. */
export const SWEEP_HOLDS = `${DROP_HOLD}
drop_expired(KEYS[1], KEYS[2], KEYS[3], ARGV[1])
local first = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
if #first == 0 then return -1 end
return first[2]
`;

/** KEYS: the hold index. ARGV: account, the score the sweep saw, next expiry or -1. Moves or drops the entry unless a reserve changed it meanwhile. */
export const REINDEX_HOLDS = `
if redis.call('ZSCORE', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
if ARGV[3] == '-1' then redis.call('ZREM', KEYS[1], ARGV[1]) else redis.call('ZADD', KEYS[1], 'XX', ARGV[3], ARGV[1]) end
return 1
`;

/** KEYS: mirrors. ARGV: their values. SET-if-absent each mirror. */
export const INIT_BALANCES = `
for i = 1, #KEYS do redis.call('SET', KEYS[i], ARGV[i], 'NX') end
return 1
`;

/** KEYS: mirror, applied marker. ARGV: amount, markerTtlMs. Adds once, and only to an existing mirror. */
export const ADD_IF_MIRRORED = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if not redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[2]) then return 0 end
redis.call('INCRBY', KEYS[1], ARGV[1])
return 1
`;

/** KEYS: mirror, applied marker. ARGV: amount. Undoes ADD_IF_MIRRORED. */
export const UNDO_ADD = `
if redis.call('DEL', KEYS[2]) == 1 then redis.call('DECRBY', KEYS[1], ARGV[1]) end
return 1
`;

/** KEYS: lock. ARGV: token. Releases a lock if it is still ours. */
export const UNLOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`;
