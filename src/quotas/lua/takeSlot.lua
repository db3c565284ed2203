--[[
  Takes one of a tenant's running slots for an execution. The slots are a sorted set of execution
  ids scored by their expiry, so a slot whose worker died frees itself when it expires. A refused
  execution is noted in the tenant's waiting set (scored by expiry too, so a waiter that went away
  drops out), whose size tells waiters how far apart to space their next tries; releaseSlot.lua
  hands its oldest member to the worker that frees a slot, to wake.
  KEYS[1] the tenant's slot set
  KEYS[2] the tenant's waiting set (same hash tag as KEYS[1])
  ARGV[1] now, in milliseconds (the caller's clock)
  ARGV[2] the execution id
  ARGV[3] the most slots the tenant may hold
  ARGV[4] the slot's time to live in milliseconds
  ARGV[5] how long a refused execution counts as waiting, in milliseconds
  ARGV[6] the execution's waiter (what the waiting set holds for it: how to wake its queue entry)
  Returns: {1, waiting} when newly taken, {2, waiting} when the execution already held it
  (refreshed), {0, waiting} when all are taken; `waiting` is the size of the waiting set after the call.
]]
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)

-- Each set lives as long as its latest member, so an idle tenant leaves no key behind.
local function expireWithLatest(key)
  local latest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if latest[2] then redis.call('PEXPIRE', key, math.max(1, math.ceil(tonumber(latest[2]) - now))) end
end

local result = 1
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then
  result = 2
elseif redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[2], now + tonumber(ARGV[5]), ARGV[6])
  expireWithLatest(KEYS[2])
  return {0, redis.call('ZCARD', KEYS[2])}
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[4]), ARGV[2])
expireWithLatest(KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[6])
return {result, redis.call('ZCARD', KEYS[2])}
