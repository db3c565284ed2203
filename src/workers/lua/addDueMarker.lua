--[[
  Wakes a BullMQ worker blocked on its queue's marker (BZPOPMIN) when a delayed entry is due, with
  the marker BullMQ's own scripts add for a delayed entry (see punctualWorker.ts).
  KEYS[1] the queue's marker key
  ARGV[1] the entry's due time, ms since the epoch
  Returns: the number of markers added (0 when one was there already).
]]
return redis.call('ZADD', KEYS[1], ARGV[1], '1')
