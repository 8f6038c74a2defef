-- window: refresh a rolling board's window when it is older than its bound
-- (not a board script: no prelude).
-- KEYS 1 the window: a sorted set, the union of the slices below
--      2 its state: a hash, "at" -> the time (unix seconds) of its last refresh
--      3... the slices the window holds now (sorted sets, some may be absent)
-- ARGV 1 now (unix seconds), 2 the freshness bound (seconds), 3 the
--      aggregate (SUM, MAX or MIN), 4 "1" to refresh whatever its age
-- Reply: 1 when the window was refreshed, 0 when it was fresh enough.
local now, max_age = tonumber(ARGV[1]), tonumber(ARGV[2])
local at = redis.call('HGET', KEYS[2], 'at')
if ARGV[4] ~= '1' and at and now - tonumber(at) <= max_age then return 0 end
local args = {KEYS[1], #KEYS - 2}
for i = 3, #KEYS do args[#args + 1] = KEYS[i] end
args[#args + 1] = 'AGGREGATE'
args[#args + 1] = ARGV[3]
redis.call('ZUNIONSTORE', unpack(args))
redis.call('HSET', KEYS[2], 'at', ARGV[1])
return 1
