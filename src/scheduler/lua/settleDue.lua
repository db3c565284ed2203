--[[
  The sweep moves due-index entries to where MongoDB says the jobs are now (later, or out), but only
  entries no API write touched since the sweep read them: such a write may be about to make the job
  due earlier, and its own entry (never later than its job) must then win.
  KEYS[1] the due index (sorted set)
  KEYS[2] the index's change stamps (hash)
  ARGV    triples: job id, the stamp the sweep read, the new time in ms or '' to remove the entry
  Returns: how many entries were settled.
]]
local settled = 0
for i = 1, #ARGV, 3 do
  local id = ARGV[i]
  if (redis.call('HGET', KEYS[2], id) or '0') == ARGV[i + 1] then
    if ARGV[i + 2] == '' then
      redis.call('ZREM', KEYS[1], id)
      redis.call('HDEL', KEYS[2], id)
    else
      redis.call('ZADD', KEYS[1], ARGV[i + 2], id)
    end
    settled = settled + 1
  end
end
return settled
