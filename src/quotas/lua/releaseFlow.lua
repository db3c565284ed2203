--[[
  Gives back an execution's running place on a flow-control key and, when a place is free, hands
  out the oldest waiter to wake. A start taken for an attempt that never began is given back too.
  KEYS[1] the key's running set
  KEYS[2] the key's starts
  KEYS[3] the key's waiting set (same hash tag as the others)
  ARGV[1] now, in milliseconds (the caller's clock)
  ARGV[2] the execution id ('' to only hand out a waiter)
  ARGV[3] the start to give back ('' when the attempt began: its start counts)
  ARGV[4] maxConcurrent (0: no limit)
  ARGV[5] '1' to hand out a waiter, '0' not to
  Returns: the waiter to wake, or false.
]]
local now = tonumber(ARGV[1])
if ARGV[2] ~= '' then redis.call('ZREM', KEYS[1], ARGV[2]) end
if ARGV[3] ~= '' then redis.call('ZREM', KEYS[2], ARGV[3]) end
-- Only a running place frees a waiter: a key limited per minute alone lets its waiters come back at their next start.
if ARGV[5] ~= '1' or tonumber(ARGV[4]) == 0 then return false end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return false end
local oldest = redis.call('ZPOPMIN', KEYS[3])
return oldest[1] or false
