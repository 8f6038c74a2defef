-- segment_read: the reads of a segmented board that need a player's segment
-- or every segment, in one round trip.
-- KEYS where, global, state, hist.
-- ARGV 6 mode, 7 the segment key prefix, 8 the global key's size, 9 the
--      histogram bucket width (0 = none), 10 player (or n for "top"),
--      11 rank style (o|c), 12... every segment's name
-- Modes:
--   "rank"    {segment, rank in it, encoded score}, or false when absent: O(log n)
--   "global"  exact rank over every segment, or false: O(S log n + ties)
--   "approx"  {rank estimate, players of other segments in the player's
--             bucket}, or false: O(log n + buckets)
--   "top"     the global key's best n, flat (player, score...), rebuilt first when stale
--   "refresh" rebuild the global key from every segment's best `size`: O(S size log size)
local mode, prefix = ARGV[6], ARGV[7]
local size, width = tonumber(ARGV[8]), tonumber(ARGV[9])
local style = ARGV[11]

-- bytes_before comes from _bytes.lua

local function rebuild()
  redis.call('DEL', global_key)
  for i = 12, #ARGV do
    local rows
    if desc then
      rows = redis.call('ZREVRANGE', prefix .. ARGV[i], 0, size - 1, 'WITHSCORES')
    else
      rows = redis.call('ZRANGE', prefix .. ARGV[i], 0, size - 1, 'WITHSCORES')
    end
    local added = {}
    for j = 1, #rows, 2 do
      added[#added + 1] = rows[j + 1]
      added[#added + 1] = rows[j]
    end
    for first = 1, #added, 1000 do  -- 500 entries a call (Lua's unpack has a limit)
      redis.call('ZADD', global_key, unpack(added, first, math.min(first + 999, #added)))
    end
    global_trim(size)
  end
  redis.call('HDEL', state_key, 'stale')
end

if mode == 'refresh' then
  rebuild()
  return redis.call('ZCARD', global_key)
end
if mode == 'top' then
  if global_stale() then rebuild() end
  local n = tonumber(ARGV[10])
  if desc then return redis.call('ZREVRANGE', global_key, 0, n - 1, 'WITHSCORES') end
  return redis.call('ZRANGE', global_key, 0, n - 1, 'WITHSCORES')
end

local player = ARGV[10]
local segment = redis.call('HGET', where_key, player)
if not segment then return false end
board = prefix .. segment
local score = tonumber(redis.call('ZSCORE', board, player))
local points = points_of(score)

if mode == 'rank' then
  return {segment, rank_in(style, index_of(player), points), num(score)}
end

if mode == 'global' then
  local ahead_count = 0
  for i = 12, #ARGV do
    board = prefix .. ARGV[i]
    if style == 'c' then
      ahead_count = ahead_count + better(points)
    else
      local edge = '(' .. num(score)
      if desc then
        ahead_count = ahead_count + redis.call('ZCOUNT', board, edge, '+inf')
      else
        ahead_count = ahead_count + redis.call('ZCOUNT', board, '-inf', edge)
      end
      -- the same encoded score: members in the sorted set's order, reversed on desc
      local tied = redis.call('ZRANGEBYSCORE', board, num(score), num(score))
      for _, other in ipairs(tied) do
        if other ~= player and (desc == bytes_before(player, other)) then ahead_count = ahead_count + 1 end
      end
    end
  end
  return ahead_count + 1
end

-- "approx": exact in the player's segment, by the histograms elsewhere
local own_ahead = rank_in(style, index_of(player), points) - 1
local bucket = math.floor(points / width)
local function sums(key)
  local better_count, same_count = 0, 0
  local flat = redis.call('HGETALL', key)
  for i = 1, #flat, 2 do
    local b, count = tonumber(flat[i]), tonumber(flat[i + 1])
    if b == bucket then
      same_count = same_count + count
    elseif (desc and b > bucket) or ((not desc) and b < bucket) then
      better_count = better_count + count
    end
  end
  return better_count, same_count
end
local all_better, all_same = sums(hist_key)
local own_better, own_same = sums(prefix .. segment .. ':hist')
local others_same = all_same - own_same
return {1 + own_ahead + (all_better - own_better) + math.floor(others_same / 2), others_same}
