--[[
  Marks the due index built at the end of a rebuild, unless Redis lost its data (or another rebuild
  started) since this one began: an index emptied half-way and then marked built would stay
  incomplete until the next periodic rebuild, its jobs missed meanwhile.
  KEYS[1] the rebuild-in-progress marker, set to this rebuild's token when it began
  KEYS[2] the built marker
  ARGV[1] this rebuild's token
  ARGV[2] the time of the build (ISO 8601)
  Returns: 1 when marked built, 0 when the in-progress marker is gone or another rebuild's.
]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('DEL', KEYS[1])
return 1
