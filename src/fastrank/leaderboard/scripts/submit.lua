-- submit: apply results to players by a rule, atomically: every new total is
-- checked before anything is written, so an error writes nothing.
-- ARGV 6 rule (incr|set|best), 7 the low word of the new scores (the tick:
--      whole ticks since the board's epoch, under the subscore when the board
--      has one; ScoreCodec.low_of), 8 rank style wanted
--      back (o|c|d, or "" for points only; one player only), 9 how many
--      overtaken players to name, 10 expiry (unix ms, 0 = none),
--      11... player, points, player, points...
-- Reply: {new points as text, ...}; with a style, {points, rank, previous
-- rank (0 = was absent), {players passed}}.
if frozen() then return redis.error_reply(FROZEN) end
local rule, tick, style = ARGV[6], tonumber(ARGV[7]), ARGV[8]
local limit, expire_at = tonumber(ARGV[9]), tonumber(ARGV[10])

-- pass 1: every new total, checked before anything is written
local olds, news, order, reply = {}, {}, {}, {}
for i = 11, #ARGV, 2 do
  local player, given = ARGV[i], tonumber(ARGV[i + 1])
  local old_points = points_now(player)
  if olds[player] ~= nil then old_points = news[player] end   -- the same player twice
  local new_points = points_after(rule, old_points, given)
  if not new_points then return redis.error_reply(RANGE .. num(max_points)) end
  if olds[player] == nil then
    olds[player] = old_points
    order[#order + 1] = player
  end
  news[player] = new_points
  reply[#reply + 1] = num(new_points)
end

local previous_index, previous_rank = false, 0
local single = ARGV[11]
if style ~= '' and olds[single] then
  previous_index = index_of(single)
  previous_rank = rank_in(style, previous_index, olds[single])
end

-- pass 2: write what changed
for _, player in ipairs(order) do
  store_points(player, olds[player], news[player], tick)
end
if expire_at > 0 then
  for _, key in ipairs(KEYS) do redis.call('PEXPIREAT', key, expire_at) end
end

if style == '' then return reply end
local index = index_of(single)
local passed = {}
if previous_index and index < previous_index and limit > 0 then
  local last = math.min(previous_index, index + limit)
  if desc then
    passed = redis.call('ZREVRANGE', board, index + 1, last)
  else
    passed = redis.call('ZRANGE', board, index + 1, last)
  end
end
return {reply[1], rank_in(style, index, news[single]), previous_rank, passed}
