--[[
  Takes tokens from a rate bucket kept as a GCRA "theoretical arrival time" (TAT): `limit` tokens
  per `periodMs`, with bursts of up to `limit`. All or nothing: a refused request takes no token.
  KEYS[1] the bucket's key (its value is the TAT in milliseconds)
  ARGV[1] now, in milliseconds (the caller's clock)
  ARGV[2] limit: tokens per period (>= 1)
  ARGV[3] period in milliseconds
  ARGV[4] tokens to take (>= 1)
  Returns: 0 when taken, else the milliseconds to wait before the same request would be allowed.
]]
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local period = tonumber(ARGV[3])
local cost = tonumber(ARGV[4])
local interval = period / limit
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then
  tat = now
end
local newTat = tat + cost * interval
local over = newTat - now - period
if over > 0 then
  return math.ceil(over)
end
redis.call('SET', KEYS[1], tostring(newTat), 'PX', math.ceil(newTat - now) + 1)
return 0
