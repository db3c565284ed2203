--[[
  Takes one of a tenant's running slots for an execution. The slots are a sorted set of execution
  ids scored by their expiry, so a slot whose worker died frees itself when it expires.
  KEYS[1] the tenant's slot set
  ARGV[1] now, in milliseconds (the caller's clock)
  ARGV[2] the execution id
  ARGV[3] the most slots the tenant may hold
  ARGV[4] the slot's time to live in milliseconds
  Returns: 1 when newly taken, 2 when the execution already held it (refreshed), 0 when all are taken.
]]
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local result = 1
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then
  result = 2
elseif redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[4]), ARGV[2])
-- The set lives as long as its latest slot, so an idle tenant leaves no key behind.
local latest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIRE', KEYS[1], math.max(1, math.ceil(tonumber(latest[2]) - now)))
return result
