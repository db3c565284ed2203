--[[
  Extends the leader lease, only for its current holder (compare-and-set on the holder id).
  KEYS[1] lease key
  ARGV[1] holder id
  ARGV[2] lease TTL in milliseconds
  Returns: 1 when renewed, 0 when the lease is lost (expired or taken by another).
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
