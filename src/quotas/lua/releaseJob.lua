--[[
  Gives back one of a tenant's job slots (a job deleted, or a reservation not used). Does nothing
  when the counter is missing: the next reservation seeds it from MongoDB's count.
  KEYS[1] the tenant's job counter
  Returns: the counter after the change, or -1 when it was missing.
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local count = redis.call('DECR', KEYS[1])
if count < 0 then
  redis.call('SET', KEYS[1], 0, 'KEEPTTL')
  return 0
end
return count
