-- standing: where one player stands, read atomically.
-- ARGV 6 player, 7 what: a rank style (o|c|d) or "p" (percentile figures).
-- Reply: false when absent; {score, rank} for a style; {score, better, worse, count} for "p".
local player, what = ARGV[6], ARGV[7]
local score = redis.call('ZSCORE', board, player)
if not score then return false end
local points = points_of(tonumber(score))
if what == 'p' then
  return {score, better(points), worse(points), redis.call('ZCARD', board)}
end
local index = 0
if what == 'o' then index = index_of(player) end
return {score, rank_in(what, index, points)}
