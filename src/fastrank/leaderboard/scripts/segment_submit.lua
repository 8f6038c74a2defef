-- segment_submit: apply a result to a player in a segment, atomically. A
-- player in another segment moves first (their entry leaves it with its
-- score and tie-break time and enters this one), then the rule applies.
-- KEYS 1..5 the segment's board keys, then where, global, state, hist.
-- ARGV 6..12 as submit.lua's for one player (rule, tick, "", passed,
--      expiry, player, points), 13 the segment, 14 the segment key prefix,
--      15 the global key's size, 16 the histogram bucket width (0 = none)
-- Reply: {new points as text}.
local rule, tick = ARGV[6], tonumber(ARGV[7])
local player, given = ARGV[11], tonumber(ARGV[12])
local segment, prefix = ARGV[13], ARGV[14]
local size, width = tonumber(ARGV[15]), tonumber(ARGV[16])

local from = redis.call('HGET', where_key, player)
local old_score, old_points = false, false
if from then
  old_score = tonumber(redis.call('ZSCORE', prefix .. from, player))
  old_points = points_of(old_score)
end
local new_points = points_after(rule, old_points, given)
if not new_points then return redis.error_reply(RANGE .. num(max_points)) end

if from ~= segment then
  redis.call('HSET', where_key, player, segment)
end
if from and from ~= segment then
  redis.call('ZREM', prefix .. from, player)
  redis.call('ZADD', board, num(old_score), player)
  hist_add(prefix, from, old_points, width, -1)
  hist_add(prefix, segment, old_points, width, 1)
end
if old_points == false or new_points ~= old_points then
  store_points(player, old_points, new_points, tick)
  if old_points then hist_add(prefix, segment, old_points, width, -1) end
  hist_add(prefix, segment, new_points, width, 1)
  global_write(player, tonumber(redis.call('ZSCORE', board, player)), size)
end
return {num(new_points)}
