/**
 * Lua scripts of the Redis billing store; each is one atomic round trip. Key layout under
 * `<prefix>bill:<account>:`: `bal:<currency>` the live balance mirror (micro-units),
 * `hsum` (currency -> sum of live holds), `hreq` (request id -> "currency|amount|keyHeldKey"),
 * `hexp` (ZSET request id -> expiry ms) and `done:<request id>` ("currency|charged").
 * Amounts cross into Lua as decimal strings and are concatenated as strings, never via
 * tostring(number), which would switch to exponent notation above 1e14.
 */

// Drops one hold record (shared by the sweep, settle and release).
const DROP_HOLD = `
local function drop_hold(base, id)
  local rec = redis.call('HGET', base..'hreq', id)
  if not rec then redis.call('ZREM', base..'hexp', id) return nil end
  local cur, amt, khk = string.match(rec, '^([^|]*)|([^|]*)|(.*)$')
  if amt ~= '0' then
    redis.call('HINCRBY', base..'hsum', cur, '-'..amt)
    if khk ~= '' then redis.call('DECRBY', khk, amt) end
  end
  redis.call('HDEL', base..'hreq', id)
  redis.call('ZREM', base..'hexp', id)
  return cur
end
`;

/**
 * ARGV: base, requestId, now, expiresAt, counterTtlMs, nReport, report currencies...,
 * nCandidates, then (currency, amount, counterKey or '', limit) per candidate.
 * Returns {0, index, balances...} held; {1} a mirror or counter is missing;
 * {2, 0, balances...} insufficient; {3, index, balances...} key limit.
 */
export const RESERVE = `${DROP_HOLD}
local base, rid, now = ARGV[1], ARGV[2], ARGV[3]
for _, id in ipairs(redis.call('ZRANGEBYSCORE', base..'hexp', '-inf', now)) do drop_hold(base, id) end
local i = 6
local bals = {}
for r = 1, tonumber(ARGV[i]) do
  local v = redis.call('GET', base..'bal:'..ARGV[i + r])
  if not v then return {1} end
  bals[r] = v
end
i = i + tonumber(ARGV[i]) + 1
local limited = -1
for c = 1, tonumber(ARGV[i]) do
  local j = i + (c - 1) * 4
  local cur, amt, ck, lim = ARGV[j + 1], ARGV[j + 2], ARGV[j + 3], ARGV[j + 4]
  local bal = redis.call('GET', base..'bal:'..cur)
  if not bal then return {1} end
  local h = tonumber(redis.call('HGET', base..'hsum', cur) or '0')
  if tonumber(bal) - h >= tonumber(amt) then
    local fits = true
    if ck ~= '' then
      local spent = redis.call('GET', ck)
      if not spent then return {1} end
      local kh = tonumber(redis.call('GET', ck..':h') or '0')
      if tonumber(spent) + kh + tonumber(amt) > tonumber(lim) then
        fits = false
        if limited < 0 then limited = c - 1 end
      end
    end
    if fits then
      local khk = ''
      if ck ~= '' then
        khk = ck..':h'
        redis.call('INCRBY', khk, amt)
        if tonumber(ARGV[5]) > 0 then redis.call('PEXPIRE', khk, ARGV[5]) end
      end
      redis.call('HINCRBY', base..'hsum', cur, amt)
      redis.call('HSET', base..'hreq', rid, cur..'|'..amt..'|'..khk)
      redis.call('ZADD', base..'hexp', ARGV[4], rid)
      return {0, c - 1, unpack(bals)}
    end
  end
end
if limited >= 0 then return {3, limited, unpack(bals)} end
return {2, 0, unpack(bals)}
`;

/**
 * ARGV: base, requestId, currency, amount, counterKey or '', counterTtlMs, settledTtlMs,
 * queueKey, rowsJson. Exactly once per request id: returns "currency|amount" charged.
 */
export const SETTLE = `${DROP_HOLD}
local base, rid = ARGV[1], ARGV[2]
local donek = base..'done:'..rid
local done = redis.call('GET', donek)
if done then return done end
drop_hold(base, rid)
local balk = base..'bal:'..ARGV[3]
if redis.call('EXISTS', balk) == 1 then redis.call('DECRBY', balk, ARGV[4]) end
if ARGV[5] ~= '' then
  local v = redis.call('INCRBY', ARGV[5], ARGV[4])
  if v == tonumber(ARGV[4]) and tonumber(ARGV[6]) > 0 then redis.call('PEXPIRE', ARGV[5], ARGV[6]) end
end
redis.call('RPUSH', ARGV[8], ARGV[9])
local res = ARGV[3]..'|'..ARGV[4]
redis.call('SET', donek, res, 'PX', ARGV[7])
return res
`;

/** ARGV: base, requestId, settledTtlMs. Returns the settlement if one happened, else nil. */
export const RELEASE = `${DROP_HOLD}
local base, rid = ARGV[1], ARGV[2]
local donek = base..'done:'..rid
local done = redis.call('GET', donek)
if done then return done end
local cur = drop_hold(base, rid) or 'USD'
redis.call('SET', donek, cur..'|0', 'PX', ARGV[3])
return false
`;

/** ARGV: base, then (currency, value) pairs; SET-if-absent each mirror. */
export const INIT_BALANCES = `
for i = 2, #ARGV, 2 do redis.call('SET', ARGV[1]..'bal:'..ARGV[i], ARGV[i + 1], 'NX') end
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

/** KEYS: queue, lock. ARGV: token, count. Trims the batch only while still holding the lock. */
export const ACK_BATCH = `
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
redis.call('LTRIM', KEYS[1], ARGV[2], -1)
redis.call('DEL', KEYS[2])
return 1
`;

/** KEYS: lock. ARGV: token. Releases the queue lock if it is still ours. */
export const UNLOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`;
