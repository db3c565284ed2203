--[[
  Gives the leader lease up at once (graceful stop), only for its current holder.
  KEYS[1] lease key
  ARGV[1] holder id
  Returns: 1 when released, 0 when it was not held by this id.
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
