--[[
  Ends a job's running slot (overlap policies), only for the execution holding it, and hands over
  the execution held by BUFFER_ONE, if any.
  KEYS[1] running key of the job
  KEYS[2] buffer key of the job
  ARGV[1] execution id that held the slot
  Returns: the buffered execution id to run next, or false (none, or the slot was not ours).
]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return false
end
redis.call('DEL', KEYS[1])
local buffered = redis.call('GET', KEYS[2])
if buffered then
  redis.call('DEL', KEYS[2])
end
return buffered
