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

/**
 * The session fault rules (`/__mock/faults`) kept in Redis, so that every replica applies every rule
 * and a request is counted once across replicas. Keys: `<prefix>:faults:next` (the last rule id given),
 * `<prefix>:faults:sessions` (sorted set: each session holding live rules, scored by when its last one
 * ends, ms), `<prefix>:faults:s:<session>` (hash: `<id>` the rule as JSON `{fault, operations, count?,
 * seconds}`, `<id>#hits` the requests it faulted, `<id>#until` when it ends, ms; it expires with its
 * last rule). Time is Redis's own clock (`TIME`), one clock for every replica.
 *
 * Every script first drops the session's used-up and expired rules; each answers, last, when the
 * session's last live rule ends (0: it holds none), which the replicas keep to know, without asking
 * Redis, that a session holds no rule.
 */
const FAULT_RULES_PRELUDE = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
-- The live rules of the session's hash, oldest first; the others are deleted.
local function live_rules(key, now)
  local flat = redis.call('HGETALL', key)
  local meta = {}
  for i = 1, #flat, 2 do
    local id, name = string.match(flat[i], '^(%d+)#(%a+)$')
    if id then
      meta[id] = meta[id] or {}
      meta[id][name] = tonumber(flat[i + 1])
    end
  end
  local rules = {}
  for i = 1, #flat, 2 do
    local id = flat[i]
    if string.match(id, '^%d+$') then
      local rule = cjson.decode(flat[i + 1])
      local m = meta[id] or {}
      local hits = m.hits or 0
      local ends = m['until'] or 0
      if ends > now and (rule.count == nil or hits < rule.count) then
        rules[#rules + 1] = { id = id, json = flat[i + 1], hits = hits, ends = ends, count = rule.count, operations = rule.operations or {} }
      else
        redis.call('HDEL', key, id, id .. '#hits', id .. '#until')
      end
    end
  end
  table.sort(rules, function(a, b) return tonumber(a.id) < tonumber(b.id) end)
  return rules
end
-- Keeps the session's entry in the sessions set (and the hash's expiry) equal to its live rules; answers when the last ends.
local function settle(sessions, key, session, rules)
  if #rules == 0 then
    redis.call('ZREM', sessions, session)
    redis.call('DEL', key)
    return 0
  end
  local last = 0
  for _, rule in ipairs(rules) do
    if rule.ends > last then last = rule.ends end
  end
  redis.call('ZADD', sessions, last, session)
  redis.call('PEXPIREAT', key, last)
  return last
end
local function flatten(rules)
  local out = {}
  for _, rule in ipairs(rules) do
    out[#out + 1] = rule.id
    out[#out + 1] = rule.json
    out[#out + 1] = rule.hits
    out[#out + 1] = rule.ends
  end
  return out
end
`;

/**
 * KEYS: next id, sessions, the session's hash. ARGV: session, the rule's JSON, seconds, most rules per
 * session, most sessions holding rules. Answers {0, id, ends, last} or {1, held} (the session holds its
 * most) or {2, sessions} (as many sessions as allowed hold rules).
 */
export const FAULT_ADD_SCRIPT = `${FAULT_RULES_PRELUDE}
local now = now_ms()
local rules = live_rules(KEYS[3], now)
if #rules >= tonumber(ARGV[4]) then return {1, #rules} end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if #rules == 0 then
  redis.call('ZREM', KEYS[2], ARGV[1])
  local holding = redis.call('ZCARD', KEYS[2])
  if holding >= tonumber(ARGV[5]) then return {2, holding} end
end
local id = tostring(redis.call('INCR', KEYS[1]))
local ends = now + tonumber(ARGV[3]) * 1000
redis.call('HSET', KEYS[3], id, ARGV[2], id .. '#hits', 0, id .. '#until', ends)
rules[#rules + 1] = { id = id, json = ARGV[2], hits = 0, ends = ends }
return {0, tonumber(id), ends, settle(KEYS[2], KEYS[3], ARGV[1], rules)}
`;

/**
 * KEYS: sessions, the session's hash. ARGV: session, operationId. Takes the oldest live rule naming the
 * operation (or none) and counts it used: answers {id, json, hits, ends, last}, or {0, '', 0, 0, last}.
 */
export const FAULT_TAKE_SCRIPT = `${FAULT_RULES_PRELUDE}
local rules = live_rules(KEYS[2], now_ms())
for i, rule in ipairs(rules) do
  local match = #rule.operations == 0
  for _, operation in ipairs(rule.operations) do
    if operation == ARGV[2] then match = true end
  end
  if match then
    local hits = redis.call('HINCRBY', KEYS[2], rule.id .. '#hits', 1)
    if rule.count ~= nil and hits >= rule.count then
      redis.call('HDEL', KEYS[2], rule.id, rule.id .. '#hits', rule.id .. '#until')
      table.remove(rules, i)
    end
    return {tonumber(rule.id), rule.json, hits, rule.ends, settle(KEYS[1], KEYS[2], ARGV[1], rules)}
  end
end
return {0, '', 0, 0, settle(KEYS[1], KEYS[2], ARGV[1], rules)}
`;

/** KEYS: sessions, the session's hash. ARGV: session. Answers {last, id, json, hits, ends, ...} (the live rules, oldest first). */
export const FAULT_LIST_SCRIPT = `${FAULT_RULES_PRELUDE}
local rules = live_rules(KEYS[2], now_ms())
local out = flatten(rules)
table.insert(out, 1, settle(KEYS[1], KEYS[2], ARGV[1], rules))
return out
`;

/** KEYS: sessions, the session's hash. ARGV: session, id. Answers {removed 1/0, last}. */
export const FAULT_REMOVE_SCRIPT = `${FAULT_RULES_PRELUDE}
local rules = live_rules(KEYS[2], now_ms())
local removed = 0
for i, rule in ipairs(rules) do
  if rule.id == ARGV[2] then
    redis.call('HDEL', KEYS[2], rule.id, rule.id .. '#hits', rule.id .. '#until')
    table.remove(rules, i)
    removed = 1
    break
  end
end
return {removed, settle(KEYS[1], KEYS[2], ARGV[1], rules)}
`;

/** KEYS: sessions, the session's hash. ARGV: session. Removes every rule of the session; answers {how many were live, 0}. */
export const FAULT_CLEAR_SCRIPT = `${FAULT_RULES_PRELUDE}
local rules = live_rules(KEYS[2], now_ms())
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
return {#rules, 0}
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
