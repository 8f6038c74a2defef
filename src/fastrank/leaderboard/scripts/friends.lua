-- friends: scores and global ranks of a few players in one call (ZMSCORE).
-- ARGV 6 rank style (o|c|d), 7 "1" to add entry data, 8... the players.
-- Reply: {{score or false, ...}, {global rank or 0, ...}, {info, ...}}.
local style, with_info = ARGV[6], ARGV[7] == '1'
local players = {}
for i = 8, #ARGV do players[#players + 1] = ARGV[i] end
local scores = each_chunk('ZMSCORE', board, players)
local ranks = {}
for i, player in ipairs(players) do
  local score = scores[i]
  if score then
    local index = 0
    if style == 'o' then index = index_of(player) end
    ranks[i] = rank_in(style, index, points_of(tonumber(score)))
  else
    ranks[i] = 0
  end
end
local infos = {}
if with_info then infos = each_chunk('HMGET', info_key, players) end
return {scores, ranks, infos}
