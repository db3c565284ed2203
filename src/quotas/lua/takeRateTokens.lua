--[[
  Takes tokens from a rate bucket kept as a GCRA "theoretical arrival time" (TAT): `limit` tokens
  per `periodMs`, with bursts of up to `limit`.
  KEYS[1] the bucket's key (its value is the TAT in milliseconds)
  ARGV[1] now, in milliseconds (the caller's clock)
  ARGV[2] limit: tokens per period (>= 1)
  ARGV[3] period in milliseconds
  ARGV[4] tokens to take (>= 1)
  ARGV[5] 'all' (all or nothing: a refused request takes no token) or 'up-to' (as many as there are)
  Returns: for 'all', 0 when taken, else the milliseconds to wait before the same request would be
  allowed; for 'up-to', the number of tokens taken (0 to ARGV[4]).
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
if ARGV[5] == 'up-to' then
  -- The most tokens n with tat + n * interval - now <= period (the epsilon absorbs rounding of interval).
  cost = math.min(cost, math.floor((now + period - tat) / interval + 1e-9))
  if cost <= 0 then
    return 0
  end
else
  local over = tat + cost * interval - now - period
  if over > 0 then
    return math.ceil(over)
  end
end
local newTat = tat + cost * interval
redis.call('SET', KEYS[1], tostring(newTat), 'PX', math.ceil(newTat - now) + 1)
if ARGV[5] == 'up-to' then
  return cost
end
return 0
