--[[
  Takes the leader lease if nobody holds it, and hands out a fencing token.
  KEYS[1] lease key
  KEYS[2] fencing counter key
  ARGV[1] candidate id
  ARGV[2] lease TTL in milliseconds
  Returns: the new fencing token (an ever-increasing integer), or 0 when someone else holds the lease.
]]
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('INCR', KEYS[2])
end
return 0
