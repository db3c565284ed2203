--[[
  Gives back an execution's running slot (if it holds one) and, when a slot is free, hands out the
  oldest waiter: the caller wakes its queue entry, so it tries again now instead of at its next timed
  try. The waiter leaves the waiting set; if it cannot be woken it rejoins at its next refusal.
  KEYS[1] the tenant's slot set
  KEYS[2] the tenant's waiting set (same hash tag as KEYS[1])
  ARGV[1] now, in milliseconds (the caller's clock)
  ARGV[2] the execution id whose slot is given back ('' to only hand out a waiter)
  ARGV[3] the most slots the tenant may hold
  Returns: the waiter to wake, or false when none waits or every slot is taken.
]]
local now = tonumber(ARGV[1])
if ARGV[2] ~= '' then redis.call('ZREM', KEYS[1], ARGV[2]) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return false end
local oldest = redis.call('ZPOPMIN', KEYS[2])
return oldest[1] or false
