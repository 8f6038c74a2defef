-- submit: apply a result to one player by a rule, atomically.
-- ARGV 6 player, 7 rule (incr|set|best), 8 points, 9 tick (whole seconds),
--      10 rank style wanted back (o|c|d, or "" for the points only),
--      11 how many overtaken players to name, 12 expiry (unix ms, 0 = none)
-- Reply: the new points as text; with a style, {points, rank, previous rank
-- (0 = was absent), {players passed}}.
if frozen() then return redis.error_reply(FROZEN) end
local player, rule, given, tick = ARGV[6], ARGV[7], tonumber(ARGV[8]), tonumber(ARGV[9])
local style, limit, expire_at = ARGV[10], tonumber(ARGV[11]), tonumber(ARGV[12])

local old_points = points_now(player)
local new_points = points_after(rule, old_points, given)
if not new_points then return redis.error_reply(RANGE .. num(max_points)) end

local previous_index, previous_rank = false, 0
if style ~= '' and old_points then
  previous_index = index_of(player)
  previous_rank = rank_in(style, previous_index, old_points)
end

store_points(player, old_points, new_points, tick, expire_at)

if style == '' then return num(new_points) end
local index = index_of(player)
local passed = {}
if previous_index and index < previous_index and limit > 0 then
  local last = math.min(previous_index, index + limit)
  if desc then
    passed = redis.call('ZREVRANGE', board, index + 1, last)
  else
    passed = redis.call('ZRANGE', board, index + 1, last)
  end
end
return {num(new_points), rank_in(style, index, new_points), previous_rank, passed}
