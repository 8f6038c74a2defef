-- range: a slice of the board in rank order, with the rank of its first entry.
-- ARGV 6 "at" (7 = first 0-based position, 8 = how many) or "around"
--      (7 = player, 8 = radius), 9 rank style (o|c|d), 10 "1" to add entry data.
-- Reply: false when "around" a player who is absent; else
--        {first position, first rank, {player, score, ...}, {info, ...}}.
local mode, style, with_info = ARGV[6], ARGV[9], ARGV[10] == '1'
local start, stop
if mode == 'around' then
  local index = index_of(ARGV[7])
  if not index then return false end
  local radius = tonumber(ARGV[8])
  start, stop = math.max(index - radius, 0), index + radius
else
  start = tonumber(ARGV[7])
  stop = start + tonumber(ARGV[8]) - 1
end
local items = {}
if stop >= start then
  if desc then
    items = redis.call('ZREVRANGE', board, start, stop, 'WITHSCORES')
  else
    items = redis.call('ZRANGE', board, start, stop, 'WITHSCORES')
  end
end
local first = start + 1
if #items > 0 and style ~= 'o' then
  first = rank_in(style, start, points_of(tonumber(items[2])))
end
local infos = {}
if with_info and #items > 0 then
  local players = {}
  for i = 1, #items, 2 do players[#players + 1] = items[i] end
  infos = each_chunk('HMGET', info_key, players)
end
return {start, first, items, infos}
