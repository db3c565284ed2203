--[[
  The due index's earliest entries: jobs whose next materialisation time is at or before a horizon.
  KEYS[1] the due index (sorted set: job id -> materialisation time in ms)
  KEYS[2] the index's change stamps (hash: job id -> count of writes by the API)
  KEYS[3] the marker set once the index was built from MongoDB (missing after Redis lost data)
  ARGV[1] the horizon, in ms
  ARGV[2] the most entries to return
  Returns: { built (1 or 0), id, score, stamp, id, score, stamp, ... }, earliest first; a missing
  stamp reads as 0.
]]
local rows = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, tonumber(ARGV[2]))
local result = { redis.call('EXISTS', KEYS[3]) }
for i = 1, #rows, 2 do
  result[#result + 1] = rows[i]
  result[#result + 1] = rows[i + 1]
  result[#result + 1] = redis.call('HGET', KEYS[2], rows[i]) or '0'
end
return result
