--[[
  Takes as many tokens as a GCRA bucket has, up to a wanted number (the bucket of takeRateTokens.lua:
  `limit` tokens per `periodMs`, bursts of up to `limit`).
  KEYS[1] the bucket's key (its value is the TAT in milliseconds)
  ARGV[1] now, in milliseconds (the caller's clock)
  ARGV[2] limit: tokens per period (>= 1)
  ARGV[3] period in milliseconds
  ARGV[4] tokens wanted (>= 1)
  Returns: the number of tokens taken, from 0 to the number wanted.
]]
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local period = tonumber(ARGV[3])
local wanted = tonumber(ARGV[4])
local interval = period / limit
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then
  tat = now
end
-- The most n with tat + n * interval - now <= period (the epsilon absorbs rounding of interval).
local taken = math.min(wanted, math.floor((now + period - tat) / interval + 1e-9))
if taken <= 0 then
  return 0
end
local newTat = tat + taken * interval
redis.call('SET', KEYS[1], tostring(newTat), 'PX', math.ceil(newTat - now) + 1)
return taken
