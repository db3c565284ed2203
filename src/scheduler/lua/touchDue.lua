--[[
  An API write to a job's schedule, after MongoDB took it: the entry may only move earlier (a
  sweep moves it later), and the stamp tells a sweep in flight not to move it from under the write.
  KEYS[1] the due index (sorted set)
  KEYS[2] the index's change stamps (hash)
  ARGV[1] the job id
  ARGV[2] the job's materialisation time in ms, or '' when it has none (the sweep removes the entry)
  Returns: the new stamp.
]]
if ARGV[2] ~= '' then redis.call('ZADD', KEYS[1], 'LT', ARGV[2], ARGV[1]) end
return redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
