/**
 * The Lua scripts of the Redis store. Redis runs a script atomically, so a create (session limit,
 * counters, the record, the byte totals) and a reset are each one step for every replica.
 *
 * Keys: `<prefix>:sessions` (set of the session names besides the default one), `<prefix>:bytes`
 * (recorded bytes, all sessions), `<prefix>:s:<session>` (hash: counters, `#records`, `#bytes`),
 * `<prefix>:s:<session>:<resource>` (sorted set: record JSON scored by its id).
 */

/**
 * KEYS: sessions, bytes, session hash, records zset.
 * ARGV: session, is-default (1/0), maxSessions, maxRecordsPerSession, maxRecordedBytes, slot count n,
 * then n × (counter, kind "id"|"sequence", JSON-escaped prefix, width), then n + 1 JSON segments.
 * Answers {0, json} or {1} too many sessions, {2} session full, {3} mock full.
 */
export const CREATE_SCRIPT = `
local session = ARGV[1]
local new_session = ARGV[2] == '0' and redis.call('SISMEMBER', KEYS[1], session) == 0
if new_session and redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[3]) then return {1} end
local count = tonumber(redis.call('HGET', KEYS[3], '#records') or '0')
if count >= tonumber(ARGV[4]) then return {2} end
local n = tonumber(ARGV[6])
local parts = {}
local values = {}
local id = 0
local segment = 7 + 4 * n
for i = 1, n do
  local base = 7 + 4 * (i - 1)
  local value = tonumber(redis.call('HGET', KEYS[3], ARGV[base]) or '0') + 1
  values[i] = value
  parts[#parts + 1] = ARGV[segment + i - 1]
  if ARGV[base + 1] == 'id' then
    parts[#parts + 1] = string.format('%d', value)
    if id == 0 then id = value end
  else
    parts[#parts + 1] = '"' .. ARGV[base + 2] .. string.format('%0' .. ARGV[base + 3] .. 'd', value) .. '"'
  end
end
parts[#parts + 1] = ARGV[segment + n]
local json = table.concat(parts)
local size = string.len(json)
if tonumber(redis.call('GET', KEYS[2]) or '0') + size > tonumber(ARGV[5]) then return {3} end
-- Every check passed: only now is anything written (a refused create changes nothing).
if new_session then redis.call('SADD', KEYS[1], session) end
for i = 1, n do
  redis.call('HSET', KEYS[3], ARGV[7 + 4 * (i - 1)], values[i])
end
redis.call('HINCRBY', KEYS[3], '#records', 1)
redis.call('HINCRBY', KEYS[3], '#bytes', size)
redis.call('INCRBY', KEYS[2], size)
redis.call('ZADD', KEYS[4], id, json)
return {0, json}
`;

/** KEYS: bytes, session hash, then the record zsets of the session. Counters stay. */
export const RESET_SCRIPT = `
local size = tonumber(redis.call('HGET', KEYS[2], '#bytes') or '0')
if size > 0 then redis.call('DECRBY', KEYS[1], size) end
redis.call('HSET', KEYS[2], '#bytes', 0, '#records', 0)
for i = 3, #KEYS do redis.call('DEL', KEYS[i]) end
return 1
`;

/**
 * Sets records aside (a record the contract in force refuses, already written to the side file).
 * KEYS: bytes, session hash, records zset. ARGV: the records' JSON, as stored. Answers how many were
 * removed (a record a reset removed meanwhile is not counted twice). Counters stay: ids are never reused.
 */
export const SET_ASIDE_SCRIPT = `
local removed = 0
local size = 0
for i = 1, #ARGV do
  if redis.call('ZREM', KEYS[3], ARGV[i]) == 1 then
    removed = removed + 1
    size = size + string.len(ARGV[i])
  end
end
if removed > 0 then
  local records = tonumber(redis.call('HGET', KEYS[2], '#records') or '0') - removed
  local bytes = tonumber(redis.call('HGET', KEYS[2], '#bytes') or '0') - size
  redis.call('HSET', KEYS[2], '#records', math.max(records, 0), '#bytes', math.max(bytes, 0))
  local total = tonumber(redis.call('GET', KEYS[1]) or '0') - size
  redis.call('SET', KEYS[1], math.max(total, 0))
end
return removed
`;

/** Frees a lock only its holder's token may free. KEYS: the lock. ARGV: the token. */
export const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;
