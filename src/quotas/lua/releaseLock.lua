--[[
  Frees a tenant lock, only for the holder that took it (a holder whose TTL ran out must not free
  the next holder's lock).
  KEYS[1] lock key
  ARGV[1] the holder's token
  Returns: 1 when freed, 0 when the lock was not this holder's.
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
