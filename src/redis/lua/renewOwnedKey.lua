--[[
  Extends a key's TTL, only for the holder whose id it holds (compare-and-set on the value): a
  lease or lock that lapsed and was taken by another stays theirs.
  KEYS[1] the key
  ARGV[1] holder id
  ARGV[2] TTL in milliseconds
  Returns: 1 when renewed, 0 when the key is not this holder's (expired or taken by another).
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
