/**
 * The Lua scripts of the Redis store. Redis runs a script atomically, so a create (session limit,
 * counters, the record, the byte totals) and a reset are each one step for every replica.
 *
 * Keys: `<prefix>:sessions` (set of the session names besides the default one), `<prefix>:bytes`
 * (recorded bytes, all sessions), `<prefix>:s:<session>` (hash: counters, `#records`, `#bytes`),
 * `<prefix>:s:<session>:<resource>` (sorted set: record JSON scored by its place in creation order: its
 * id for a resource the store numbers), and for a resource whose key the client chooses
 * `<prefix>:s:<session>:<resource>:keys` (hash: key → place; the places count in the session hash's
 * `<resource>#`).
 */

/** The place of a record: its id (mode `id`), or its key's place in the keys hash (mode `key`); false when none. Shared by the scripts below. */
const PLACE = `
local function place(mode, keys_hash, key)
  if mode == 'id' then return tonumber(key) end
  local seq = redis.call('HGET', keys_hash, key)
  if not seq then return false end
  return tonumber(seq)
end
`;

/** KEYS: records zset, keys hash. ARGV: mode (id|key), key. Answers the record's JSON, or false. */
export const READ_SCRIPT = `${PLACE}
local seq = place(ARGV[1], KEYS[2], ARGV[2])
if not seq then return false end
local found = redis.call('ZRANGEBYSCORE', KEYS[1], seq, seq)
return found[1] or false
`;

/**
 * KEYS: records zset, keys hash, bytes, session hash. ARGV: mode, key, expected JSON, next JSON,
 * maxRecordedBytes. Answers {0} replaced, {4} changed meanwhile, {5} no such record, {3} mock full.
 */
export const REPLACE_SCRIPT = `${PLACE}
local seq = place(ARGV[1], KEYS[2], ARGV[2])
if not seq then return {5} end
local found = redis.call('ZRANGEBYSCORE', KEYS[1], seq, seq)
if not found[1] then return {5} end
if found[1] ~= ARGV[3] then return {4} end
local grows = string.len(ARGV[4]) - string.len(found[1])
if grows > 0 and tonumber(redis.call('GET', KEYS[3]) or '0') + grows > tonumber(ARGV[5]) then return {3} end
redis.call('ZREM', KEYS[1], found[1])
redis.call('ZADD', KEYS[1], seq, ARGV[4])
redis.call('HINCRBY', KEYS[4], '#bytes', grows)
redis.call('INCRBY', KEYS[3], grows)
return {0}
`;

/** KEYS: records zset, keys hash, bytes, session hash. ARGV: mode, key. Answers {0} deleted, {5} no such record. */
export const REMOVE_SCRIPT = `${PLACE}
local seq = place(ARGV[1], KEYS[2], ARGV[2])
if not seq then return {5} end
local found = redis.call('ZRANGEBYSCORE', KEYS[1], seq, seq)
if not found[1] then return {5} end
local size = string.len(found[1])
redis.call('ZREM', KEYS[1], found[1])
if ARGV[1] == 'key' then redis.call('HDEL', KEYS[2], ARGV[2]) end
redis.call('HINCRBY', KEYS[4], '#records', -1)
redis.call('HINCRBY', KEYS[4], '#bytes', -size)
redis.call('DECRBY', KEYS[3], size)
return {0}
`;

/**
 * KEYS: sessions, bytes, session hash, records zset, keys hash.
 * ARGV: session, is-default (1/0), maxSessions, maxRecordsPerSession, maxRecordedBytes, slot count n,
 * then n × (counter, kind "id"|"sequence", JSON-escaped prefix, width), then n + 1 JSON segments, then
 * the key the client chose and its place counter (both empty when the store numbers the key).
 * Answers {0, json} or {1} too many sessions, {2} session full, {3} mock full, {6} the key exists.
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
local client_key = ARGV[segment + n + 1]
local keyed = client_key ~= nil and client_key ~= ''
if keyed and redis.call('HEXISTS', KEYS[5], client_key) == 1 then return {6} end
-- Every check passed: only now is anything written (a refused create changes nothing).
if new_session then redis.call('SADD', KEYS[1], session) end
for i = 1, n do
  redis.call('HSET', KEYS[3], ARGV[7 + 4 * (i - 1)], values[i])
end
redis.call('HINCRBY', KEYS[3], '#records', 1)
redis.call('HINCRBY', KEYS[3], '#bytes', size)
redis.call('INCRBY', KEYS[2], size)
if keyed then
  local seq = redis.call('HINCRBY', KEYS[3], ARGV[segment + n + 2], 1)
  redis.call('HSET', KEYS[5], client_key, seq)
  redis.call('ZADD', KEYS[4], seq, json)
else
  redis.call('ZADD', KEYS[4], id, json)
end
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
