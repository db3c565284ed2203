--[[
  Deletes a key, only for the holder whose id it holds: a holder whose TTL ran out must not free
  the next holder's lease or lock.
  KEYS[1] the key
  ARGV[1] holder id
  Returns: 1 when deleted, 0 when the key was not this holder's.
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
