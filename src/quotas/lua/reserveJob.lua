--[[
  Reserves one of a tenant's job slots: the tenant's job counter goes up by one unless it is at
  the quota. The counter is a cache of the jobs collection's count, so it may be missing.
  KEYS[1] the tenant's job counter
  ARGV[1] the most jobs the tenant may hold
  Returns: 1 when reserved (counter incremented), 0 when the tenant is at its quota, -1 when the
  counter is missing (the caller seeds it from MongoDB and asks again).
]]
local count = redis.call('GET', KEYS[1])
if not count then return -1 end
if tonumber(count) >= tonumber(ARGV[1]) then return 0 end
redis.call('INCR', KEYS[1])
return 1
