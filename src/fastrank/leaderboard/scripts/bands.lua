-- bands: a range-partitioned board's writes and its rank, atomically
-- (fastrank/leaderboard/bands.py). The bands and the descriptor share one hash
-- tag, so a cluster runs the script on one node.
-- KEYS 1 the descriptor, 2 the histogram of band 0 (a hash, bucket -> players);
--      then per band, lowest points first: the band's board, its distinct
--      point values, their holder counts (KEYS 1..3 of a plain board's script)
-- ARGV 1..5 the board's configuration (as for every board script),
--      6 the layout generation the caller read (else FASTRANK_MOVED),
--      7 the mode, 8 the width of a histogram bucket of band 0 ("0": the
--      board keeps no histogram); band 0's points p count in bucket
--      floor(p / width), clipped to 0..HISTOGRAM-1
--   submit: 9 rule (incr|set|best), 10 the low word of new scores, 11 k bounds,
--           12..11+k the bounds (increasing), then player, points, player...
--           Reply: {new points as text, ...}; a player whose new points lie
--           in another band moves there in this same script.
--   remove: 9 player. Reply: 1 if the player was on the board, else 0.
--   rank:   9 style (o|c|d), 10 player, 11 "1" to estimate a rank in band 0
--           from the histogram. Reply: {} if absent, else {band, index in the
--           band (-1 when estimated), global rank, players in the player's
--           bucket (0 when exact), size of band 0, band 1, ...}.
local descriptor, histogram_key = KEYS[1], KEYS[2]
local bands = (#KEYS - 2) / 3
local mode, width = ARGV[7], tonumber(ARGV[8])
local HISTOGRAM = 32
local MOVED = 'FASTRANK_MOVED the bands moved to another layout generation; read the descriptor again'
local BUSY = 'FASTRANK_BUSY the bands are being rebalanced; writes wait until the rebalance ends'

if redis.call('HGET', descriptor, 'generation') ~= ARGV[6] then return redis.error_reply(MOVED) end

-- point the prelude's helpers at band `b` (0-based)
local function use(b)
  board, dense_key, counts_key = KEYS[3 + 3 * b], KEYS[4 + 3 * b], KEYS[5 + 3 * b]
end

-- the band holding `player` (0-based) and its score, or false: O(bands)
local function find(player)
  for b = 0, bands - 1 do
    local score = redis.call('ZSCORE', KEYS[3 + 3 * b], player)
    if score then return b, tonumber(score) end
  end
  return false, false
end

-- the histogram bucket of band 0 that `points` count in
local function bucket_of(points)
  local b = math.floor(points / width)
  if b < 0 then return 0 end
  if b >= HISTOGRAM then return HISTOGRAM - 1 end
  return b
end

-- one more (delta 1) or one fewer (-1) player of band 0 holding `points`
local function histogram(points, delta)
  if width > 0 then redis.call('HINCRBY', histogram_key, bucket_of(points), delta) end
end

local function writable()
  local pending = redis.call('HGET', descriptor, 'next')
  return not pending or pending == ''
end

if mode == 'rank' then
  local style, player = ARGV[9], ARGV[10]
  local band, score = find(player)
  if not band then return {} end
  use(band)
  local index, rank, shared = -1, 1, 0
  if band == 0 and width > 0 and ARGV[11] == '1' then
    -- estimated: the first place among the players of its bucket (band 0 is
    -- the worst on a board with a histogram: bands.py checks order desc)
    local mine = bucket_of(points_of(score))
    local counts = redis.call('HGETALL', histogram_key)
    for i = 1, #counts, 2 do
      local b, n = tonumber(counts[i]), tonumber(counts[i + 1])
      if b > mine then rank = rank + n elseif b == mine then shared = n end
    end
  else
    index = index_of(player)
    rank = rank_in(style, index, points_of(score))
  end
  local reply = {band, index, 0, shared}
  for b = 0, bands - 1 do
    local size = redis.call('ZCARD', KEYS[3 + 3 * b])
    reply[#reply + 1] = size
    -- the bands of better points: above this one (desc) or below (asc)
    if (desc and b > band) or ((not desc) and b < band) then
      if style == 'd' then rank = rank + redis.call('ZCARD', KEYS[4 + 3 * b]) else rank = rank + size end
    end
  end
  reply[3] = rank
  return reply
end

if not writable() then return redis.error_reply(BUSY) end

if mode == 'remove' then
  local player = ARGV[9]
  local band, score = find(player)
  if not band then return 0 end
  use(band)
  redis.call('ZREM', board, player)
  if dense then count_points(points_of(score), -1) end
  if band == 0 then histogram(points_of(score), -1) end
  return 1
end

-- submit
local rule, tick, k = ARGV[9], tonumber(ARGV[10]), tonumber(ARGV[11])
local function band_of(points)
  local b = 0
  for i = 12, 11 + k do
    if points >= tonumber(ARGV[i]) then b = b + 1 end
  end
  return b
end

-- pass 1: every new total, checked before anything is written
local olds, homes, news, order, reply = {}, {}, {}, {}, {}
for i = 12 + k, #ARGV, 2 do
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
  if home == 0 then histogram(old, -1) end
  if target == 0 then histogram(new, 1) end
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
