-- segment_remove: take a player off a segmented board (whatever their segment).
-- KEYS where, global, state, hist.
-- ARGV 6 player, 7 the segment key prefix, 8 the global key's size,
--      9 the histogram bucket width (0 = none)
-- Reply: 1 if the player was on the board, else 0.
local player, prefix = ARGV[6], ARGV[7]
local size, width = tonumber(ARGV[8]), tonumber(ARGV[9])
local from = redis.call('HGET', where_key, player)
if not from then return 0 end
local key = prefix .. from
local points = points_of(tonumber(redis.call('ZSCORE', key, player)))
redis.call('ZREM', key, player)
redis.call('HDEL', where_key, player)
hist_add(prefix, from, points, width, -1)
global_drop(player, size)
return 1
