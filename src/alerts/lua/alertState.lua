-- One job's alert state under its rules, changed by one event; returns the alerts to raise as
-- rule id, state pairs. One alert per change of state: a flag per rule says it alerted, and only
-- the event that ends that state clears it.
-- KEYS[1]: the job's state (hash: `streak`, consecutive FAILED executions; `f:<rule>` failing
--          alerted; `s:<rule>` skip alerted; `o:<rule>` overdue alerted).
-- ARGV[1]: the event (FAILED, SUCCEEDED, SKIPPED, OVERDUE); ARGV[2]: the state's TTL in ms;
-- ARGV[3..]: the job's rules as id, kind, threshold triples.
local key = KEYS[1]
local event = ARGV[1]
local raised = {}

local function raise(rule, state)
  table.insert(raised, rule)
  table.insert(raised, state)
end

if event == 'SUCCEEDED' then
  -- A healthy job has no state: its successes cost one EXISTS.
  if redis.call('EXISTS', key) == 0 then return raised end
  for i = 3, #ARGV, 3 do
    if ARGV[i + 1] == 'CONSECUTIVE_FAILURES' and redis.call('HEXISTS', key, 'f:' .. ARGV[i]) == 1 then raise(ARGV[i], 'RECOVERED') end
  end
  redis.call('DEL', key)
  return raised
end

if event == 'FAILED' then
  local streak = redis.call('HINCRBY', key, 'streak', 1)
  for i = 3, #ARGV, 3 do
    local rule, kind = ARGV[i], ARGV[i + 1]
    if kind == 'CONSECUTIVE_FAILURES' then
      if streak >= tonumber(ARGV[i + 2]) and redis.call('HSETNX', key, 'f:' .. rule, '1') == 1 then raise(rule, 'FAILING') end
    else
      -- The job ran: a later skip or lateness is a new change of state.
      redis.call('HDEL', key, 's:' .. rule, 'o:' .. rule)
    end
  end
else
  local kind, flag, state = 'SKIPPED', 's:', 'SKIPPED'
  if event == 'OVERDUE' then kind, flag, state = 'OVERDUE', 'o:', 'OVERDUE' end
  for i = 3, #ARGV, 3 do
    if ARGV[i + 1] == kind and redis.call('HSETNX', key, flag .. ARGV[i], '1') == 1 then raise(ARGV[i], state) end
  end
end
redis.call('PEXPIRE', key, ARGV[2])
return raised
