// The Lua scripts of the Redis rate-limit store (RateLimitStore.ts `makeRedis`): each acquisition, settling, release
// of a waiter's places and pause is one script, so that every process on a budget sees it whole. Only the texts are
// here; the store describes them (`Redis.script`) when it is made, so that a bundle without it leaves Redis out.
//
// Scores are the times (Redis's clock, ms) at which an entry stops counting: one window after its answer once
// settled, or `lease` + one window after its grant while in flight. Members are `<id>:<weight>`; `<key>:used` holds
// the weight of the entries, so that a grant costs the entries that expired, not all of them. A grant only ever
// lengthens the keys' time to live: clients with different leases (timeouts) share a budget (the address's), and a
// shorter lease must not drop the entries of a longer one still in flight. A refused acquisition writes no key that
// lacks one (an empty budget's counter is deleted, not set to 0). A request that does
// not fit is told how long to wait, and which of its budgets holds it (0: a pause): until enough weight expires (an
// entry in flight counted as if answered now, the soonest it can be), or the longest pause of its budgets.
// The pause keys it is given are `<key>:pause`, or `<key>:pause:exempt` for a request exempt from pauses: a 429 such a
// request drew sets both (`pauseLua` is given both), any other only the first (RateLimitStore.ts `pauseKey`).
//
// First come, first served, as in memory: a refused acquisition takes a place in each budget's `<key>:queue` (members
// `<ticket>:<id>:<weight>`, the ticket its first refusal's time, so that the members' order is the arrival order;
// scores: when the place lapses, `grace` after the time it said it would try again), and keeps it from one try to the
// next. An acquisition counts the weights of the waiters ahead of it as used: a stream of light requests no longer
// takes every bit of weight that leaves the window before a heavy one that waits. A waiter held by the others waits
// no longer than until the first of them tries again; one that gives up gives its place back (`releaseLua`), one whose
// process died loses it when it lapses. A pause is waited out before any queue. As in memory, an acquisition with an
// endpoint budget (the first) is checked there first: held by it, it queues there only, and takes its places in the
// shared budgets (by its first ticket) once the endpoint's budget has room, so that it holds up no other endpoint's
// request in them meanwhile.
//
// A Redis that forgot the fleet's window (restarted empty, flushed) holds every budget for one window, as a pause
// would: the requests the processes sent before it forgot leave the venue's window meanwhile. It is told by the epoch
// key (`<prefix>epoch`, the last key), `<born>:<maker>:<lost>`, which the first acquisition to find it missing writes:
// `lost` is 1 when that process had read an earlier epoch (its `known`), and an acquisition of a process that knew an
// earlier one and finds a newer epoch made by a process that did not (one started since) sets it. Every answer
// carries the epoch without its flag, for the process to keep as its `known`. The key lives a day past the last
// acquisition: an idle fleet's next request after that is held for one window.
export const acquireLua = `
local time = redis.call("TIME")
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local n = (#KEYS - 1) / 4
local ticket = ARGV[3 * n + 3]
local grace = tonumber(ARGV[3 * n + 4])
local epochKey = KEYS[4 * n + 1]
local known = ARGV[3 * n + 6]
local epoch = redis.call("GET", epochKey)
local born, maker, lost
if epoch then born, maker, lost = string.match(epoch, "^(%d+):([^:]*):([01])$") end
if not born then
  born = string.format("%.0f", now)
  maker = ARGV[3 * n + 7]
  lost = known ~= "" and "1" or "0"
  redis.call("SET", epochKey, born .. ":" .. maker .. ":" .. lost, "PX", 86400000)
elseif redis.call("PTTL", epochKey) < 43200000 then
  redis.call("PEXPIRE", epochKey, 86400000)
end
local id = born .. ":" .. maker
if lost == "0" and known ~= "" and known ~= id then
  lost = "1"
  redis.call("SET", epochKey, id .. ":1", "KEEPTTL")
end
local wait = 0
for i = 1, n do
  local left = redis.call("PTTL", KEYS[2 * n + i])
  if left > wait then wait = left end
  if lost == "1" then
    local held = tonumber(born) + tonumber(ARGV[3 * i + 1]) - now
    if held > wait then wait = held end
  end
end
if wait > 0 then return {0, wait, 0, ticket, id} end
local lease = tonumber(ARGV[2])
local by = 0
local weightOf = function(member) return tonumber(string.match(member, ":([^:]+)$")) end
local mine = {}
if ticket ~= "" then
  for i = 1, n do mine[i] = ticket .. ":" .. ARGV[1] .. ":" .. ARGV[3 * i + 2] end
end
-- How long budget i holds the acquisition (0: it fits), once what expired is dropped.
local holds = function(i)
  local key = KEYS[i]
  local limit = tonumber(ARGV[3 * i])
  local window = tonumber(ARGV[3 * i + 1])
  local weight = tonumber(ARGV[3 * i + 2])
  local stored = redis.call("GET", KEYS[n + i])
  local used = tonumber(stored or "0")
  local expired = redis.call("ZRANGEBYSCORE", key, "-inf", now)
  if #expired > 0 then
    for j = 1, #expired do used = used - weightOf(expired[j]) end
    redis.call("ZREMRANGEBYSCORE", key, "-inf", now)
  end
  if redis.call("ZCARD", key) == 0 then
    used = 0
    if stored then redis.call("DEL", KEYS[n + i]) end
  else
    if used < 0 then used = 0 end
    if stored and #expired > 0 then redis.call("SET", KEYS[n + i], used, "KEEPTTL") end
  end
  local queue = KEYS[3 * n + i]
  redis.call("ZREMRANGEBYSCORE", queue, "-inf", now)
  local ahead = 0
  local soonest = nil
  local waiters = redis.call("ZRANGE", queue, 0, -1, "WITHSCORES")
  for j = 1, #waiters, 2 do
    if mine[i] == nil or waiters[j] < mine[i] then
      ahead = ahead + weightOf(waiters[j])
      local lapses = tonumber(waiters[j + 1])
      local polls = lapses - grace
      if polls <= now then polls = lapses end
      if soonest == nil or polls < soonest then soonest = polls end
    end
  end
  if used + ahead + weight <= limit then return 0 end
  local need = used + ahead + weight - limit
  local freed = 0
  local at = now + window
  local entries = redis.call("ZRANGE", key, 0, -1, "WITHSCORES")
  for j = 1, #entries, 2 do
    freed = freed + weightOf(entries[j])
    if freed >= need then
      at = math.min(tonumber(entries[j + 1]), now + window)
      break
    end
  end
  if soonest ~= nil and soonest + 1 < at then at = soonest + 1 end
  return at - now
end
-- Takes (or keeps) the acquisition's place in budget i's queue until it tries again, plus the grace.
local join = function(i)
  local queue = KEYS[3 * n + i]
  redis.call("ZADD", queue, now + wait + grace, ticket .. ":" .. ARGV[1] .. ":" .. ARGV[3 * i + 2])
  if redis.call("PTTL", queue) < wait + grace then redis.call("PEXPIRE", queue, wait + grace) end
end
local from = 1
if ARGV[3 * n + 5] == "1" then
  -- The endpoint's own budget first: a request it holds waits in its queue only, and holds no weight back in the
  -- shared budgets (a place it took there before is given back).
  wait = holds(1)
  if wait > 0 then
    if ticket == "" then ticket = string.format("%015.0f", now) end
    for i = 2, n do
      if mine[i] then redis.call("ZREM", KEYS[3 * n + i], mine[i]) end
    end
    join(1)
    return {0, wait, 1, ticket, id}
  end
  from = 2
end
for i = from, n do
  local held = holds(i)
  if held > wait then
    wait = held
    by = i
  end
end
if wait > 0 then
  if ticket == "" then ticket = string.format("%015.0f", now) end
  for i = 1, n do join(i) end
  return {0, wait, by, ticket, id}
end
for i = 1, n do
  local key = KEYS[i]
  local window = tonumber(ARGV[3 * i + 1])
  if mine[i] then redis.call("ZREM", KEYS[3 * n + i], mine[i]) end
  redis.call("ZADD", key, now + lease + window, ARGV[1] .. ":" .. ARGV[3 * i + 2])
  redis.call("INCRBYFLOAT", KEYS[n + i], ARGV[3 * i + 2])
  local ttl = lease + window
  if redis.call("PTTL", key) < ttl then redis.call("PEXPIRE", key, ttl) end
  if redis.call("PTTL", KEYS[n + i]) < ttl then redis.call("PEXPIRE", KEYS[n + i], ttl) end
end
return {1, now, id}
`

export const settleLua = `
local time = redis.call("TIME")
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
for i = 1, #KEYS do
  redis.call("ZADD", KEYS[i], "XX", now + tonumber(ARGV[2 * i]), ARGV[1] .. ":" .. ARGV[2 * i + 1])
end
return 1
`

// A waiter's places, found by its id (members `<ticket>:<id>:<weight>`; queues are short).
export const releaseLua = `
local mark = ":" .. ARGV[1] .. ":"
for i = 1, #KEYS do
  local members = redis.call("ZRANGE", KEYS[i], 0, -1)
  for j = 1, #members do
    if string.find(members[j], mark, 1, true) then redis.call("ZREM", KEYS[i], members[j]) end
  end
end
return 1
`

export const pauseLua = `
local millis = tonumber(ARGV[1])
for i = 1, #KEYS do
  if redis.call("PTTL", KEYS[i]) < millis then redis.call("SET", KEYS[i], "1", "PX", millis) end
end
return 1
`

// How long a waiter keeps its place in a queue past the time it said it would try again (a process that died, or
// gave up without a word, holds the others up no longer than that).
export const QUEUE_GRACE_MILLIS = 1_000
