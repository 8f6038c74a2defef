-- bands: a range-partitioned board's writes and its rank, atomically
-- (fastrank/leaderboard/bands.py). The bands and the descriptor share one hash
-- tag, so a cluster runs the script on one node.
-- KEYS 1 the descriptor; then per band, lowest points first: the band's board,
--      its distinct point values, their holder counts (KEYS 2..4 of a plain board)
-- ARGV 1..5 the board's configuration (as for every board script),
--      6 the layout generation the caller read (else FASTRANK_MOVED),
--      7 the mode:
--   submit: 8 rule (incr|set|best), 9 the low word of new scores, 10 k bounds,
--           11..10+k the bounds (increasing), then player, points, player...
--           Reply: {new points as text, ...}; a player whose new points lie
--           in another band moves there in this same script.
--   remove: 8 player. Reply: 1 if the player was on the board, else 0.
--   rank:   8 style (o|c|d), 9 player. Reply: {} if absent, else {band,
--           index in the band, global rank, size of band 0, band 1, ...}.
local descriptor = KEYS[1]
local bands = (#KEYS - 1) / 3
local mode = ARGV[7]
local MOVED = 'FASTRANK_MOVED the bands moved to another layout generation; read the descriptor again'
local BUSY = 'FASTRANK_BUSY the bands are being rebalanced; writes wait until the rebalance ends'

if redis.call('HGET', descriptor, 'generation') ~= ARGV[6] then return redis.error_reply(MOVED) end

-- point the prelude's helpers at band `b` (0-based)
local function use(b)
  board, dense_key, counts_key = KEYS[2 + 3 * b], KEYS[3 + 3 * b], KEYS[4 + 3 * b]
end

-- the band holding `player` (0-based) and its score, or false: O(bands)
local function find(player)
  for b = 0, bands - 1 do
    local score = redis.call('ZSCORE', KEYS[2 + 3 * b], player)
    if score then return b, tonumber(score) end
  end
  return false, false
end

local function writable()
  local pending = redis.call('HGET', descriptor, 'next')
  return not pending or pending == ''
end

if mode == 'rank' then
  local style, player = ARGV[8], ARGV[9]
  local band, score = find(player)
  if not band then return {} end
  use(band)
  local index = index_of(player)
  local rank = rank_in(style, index, points_of(score))
  local reply = {band, index, 0}
  for b = 0, bands - 1 do
    local size = redis.call('ZCARD', KEYS[2 + 3 * b])
    reply[#reply + 1] = size
    -- the bands of better points: above this one (desc) or below (asc)
    if (desc and b > band) or ((not desc) and b < band) then
      if style == 'd' then rank = rank + redis.call('ZCARD', KEYS[3 + 3 * b]) else rank = rank + size end
    end
  end
  reply[3] = rank
  return reply
end

if not writable() then return redis.error_reply(BUSY) end

if mode == 'remove' then
  local player = ARGV[8]
  local band, score = find(player)
  if not band then return 0 end
  use(band)
  redis.call('ZREM', board, player)
  if dense then count_points(points_of(score), -1) end
  return 1
end

-- submit
local rule, tick, k = ARGV[8], tonumber(ARGV[9]), tonumber(ARGV[10])
local function band_of(points)
  local b = 0
  for i = 11, 10 + k do
    if points >= tonumber(ARGV[i]) then b = b + 1 end
  end
  return b
end

-- pass 1: every new total, checked before anything is written
local olds, homes, news, order, reply = {}, {}, {}, {}, {}
for i = 11 + k, #ARGV, 2 do
  local player, given = ARGV[i], tonumber(ARGV[i + 1])
  local old, home = false, false
  if olds[player] ~= nil then
    old = news[player]                                    -- the same player twice
  else
    local band, score = find(player)
    if band then old, home = points_of(score), band end
  end
  local new = points_after(rule, old, given)
  if not new then return redis.error_reply(RANGE .. num(max_points)) end
  if olds[player] == nil then
    olds[player], homes[player] = old, home
    order[#order + 1] = player
  end
  news[player] = new
  reply[#reply + 1] = num(new)
end

-- pass 2: write what changed; a player crossing a bound leaves the old band
for _, player in ipairs(order) do
  local old, new, home = olds[player], news[player], homes[player]
  local target = band_of(new)
  if home and home ~= target then
    use(home)
    redis.call('ZREM', board, player)
    if dense then count_points(old, -1) end
    old = false
  end
  use(target)
  store_points(player, old, new, tick)
end
return reply
