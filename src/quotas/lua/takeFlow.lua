--[[
  Takes a flow-control key for one attempt: a running place (maxConcurrent) and a start in the last
  60 s (maxPerMinute). Running places are a sorted set of execution ids scored by expiry (a dead
  worker's place frees itself); starts are a sorted set of `<execution>:<attempt>` scored by when
  they started. A refused execution joins the waiting set (its waiter: what wakes its queue entry;
  releaseFlow.lua hands out the oldest) and its reason is noted for the API.
  KEYS[1] the key's running set
  KEYS[2] the key's starts
  KEYS[3] the key's waiting set
  KEYS[4] the execution's noted reason (same hash tag as the others)
  ARGV[1] now, in milliseconds (the caller's clock)
  ARGV[2] the execution id
  ARGV[3] this start's id (`<execution>:<attempt>`)
  ARGV[4] maxConcurrent (0: no limit)
  ARGV[5] maxPerMinute (0: no limit)
  ARGV[6] the running place's time to live, in milliseconds
  ARGV[7] how long a refused execution counts as waiting (and its reason is kept), in milliseconds
  ARGV[8] the execution's waiter
  Returns: {1, 0, 0} taken, {2, 0, 0} the execution held it already (a redelivery; refreshed),
  {0, waiting, 0} every running place taken, {3, waiting, at} the minute's starts used up, the
  next one free at `at` (ms); `waiting` counts the waiting set after the call.
]]
local now = tonumber(ARGV[1])
local maxConcurrent = tonumber(ARGV[4])
local maxPerMinute = tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - 60000)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)

-- Each set lives as long as its latest member needs it, so an idle key leaves nothing behind.
local function expireAfter(key, extraMs)
  local latest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if latest[2] then redis.call('PEXPIRE', key, math.max(1, math.ceil(tonumber(latest[2]) + extraMs - now))) end
end

local function refuse(result, note, at)
  redis.call('ZADD', KEYS[3], now + tonumber(ARGV[7]), ARGV[8])
  expireAfter(KEYS[3], 0)
  redis.call('SET', KEYS[4], note, 'PX', ARGV[7])
  return {result, redis.call('ZCARD', KEYS[3]), at}
end

if redis.call('ZSCORE', KEYS[1], ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[6]), ARGV[2])
  return {2, 0, 0}
end
if maxConcurrent > 0 then
  local running = redis.call('ZCARD', KEYS[1])
  if running >= maxConcurrent then
    return refuse(0, 'concurrency|' .. running .. '|' .. maxConcurrent, 0)
  end
end
if maxPerMinute > 0 then
  local started = redis.call('ZCARD', KEYS[2])
  if started >= maxPerMinute then
    -- Waiters are spread over the starts that fall out of the window next, in the order they wait.
    local rank = redis.call('ZRANK', KEYS[3], ARGV[8]) or redis.call('ZCARD', KEYS[3])
    local oldest = redis.call('ZRANGE', KEYS[2], rank % maxPerMinute, rank % maxPerMinute, 'WITHSCORES')
    local at = tonumber(oldest[2]) + 60000 * (1 + math.floor(rank / maxPerMinute))
    return refuse(3, 'rate|' .. started .. '|' .. maxPerMinute .. '|' .. at, at)
  end
  redis.call('ZADD', KEYS[2], now, ARGV[3])
  expireAfter(KEYS[2], 60000)
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[6]), ARGV[2])
expireAfter(KEYS[1], 0)
redis.call('ZREM', KEYS[3], ARGV[8])
redis.call('DEL', KEYS[4])
return {1, 0, 0}
