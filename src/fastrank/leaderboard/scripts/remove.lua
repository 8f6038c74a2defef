-- remove: take one player off the board with their entry data, atomically.
-- ARGV 6 player. Reply: 1 if the player was on the board, else 0.
if frozen() then return redis.error_reply(FROZEN) end
local player = ARGV[6]
redis.call('HDEL', info_key, player)
local old = redis.call('ZSCORE', board, player)
if not old then return 0 end
redis.call('ZREM', board, player)
if dense then count_points(points_of(tonumber(old)), -1) end
return 1
