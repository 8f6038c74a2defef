-- fastrank leaderboard scripts: the shared prelude (prepended to every script).
--
-- KEYS (one hash tag, so a cluster runs the script on one node):
--   1 the board: a sorted set, player -> encoded score
--   2 the distinct point values (dense rank): a sorted set, "points" -> points
--   3 how many players hold each distinct value: a hash, "points" -> count
--   4 the board's state: a hash ("frozen" once a season is rolled over)
--   5 the players' entry data: a hash, player -> JSON text
-- ARGV 1..5, the board's configuration:
--   1 scale: 2^(subscore_bits + time_bits), or 0 without a tie-break (the
--     score is the points); the low word below it is written as one number
--     (submit's ARGV 7), so a subscore and the board's epoch and tick need
--     nothing here (fastrank/leaderboard/scorebits.py)
--   2 "1" when higher is better (order desc)
--   3 "1" when the tie-break tick is mirrored (see fastrank/leaderboard/scorebits.py)
--   4 "1" when the board keeps the dense-rank companion (keys 2 and 3)
--   5 the largest magnitude of points the board holds
-- Every number written is exact decimal text (%.17g), never Lua's %.14g.
local board, dense_key, counts_key, meta_key, info_key = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local scale = tonumber(ARGV[1])
local desc = ARGV[2] == '1'
local mirrored = ARGV[3] == '1'
local dense = ARGV[4] == '1'
local max_points = tonumber(ARGV[5])

local function num(x)
  return string.format('%.17g', x)
end

local function points_of(score)
  if scale == 0 then return score end
  return math.floor(score / scale)
end

local function encode(points, tick)
  if scale == 0 then return points end
  if mirrored then tick = scale - 1 - tick end
  return points * scale + tick
end

-- players whose points are strictly better than `points`: O(log n)
local function better(points)
  if desc then
    if scale == 0 then return redis.call('ZCOUNT', board, '(' .. num(points), '+inf') end
    return redis.call('ZCOUNT', board, num((points + 1) * scale), '+inf')
  end
  if scale == 0 then return redis.call('ZCOUNT', board, '-inf', '(' .. num(points)) end
  return redis.call('ZCOUNT', board, '-inf', '(' .. num(points * scale))
end

-- players whose points are strictly worse than `points`: O(log n)
local function worse(points)
  if desc then
    if scale == 0 then return redis.call('ZCOUNT', board, '-inf', '(' .. num(points)) end
    return redis.call('ZCOUNT', board, '-inf', '(' .. num(points * scale))
  end
  if scale == 0 then return redis.call('ZCOUNT', board, '(' .. num(points), '+inf') end
  return redis.call('ZCOUNT', board, num((points + 1) * scale), '+inf')
end

-- distinct point values strictly better than `points`: O(log n)
local function dense_better(points)
  if desc then return redis.call('ZCOUNT', dense_key, '(' .. num(points), '+inf') end
  return redis.call('ZCOUNT', dense_key, '-inf', '(' .. num(points))
end

-- 0-based position in rank order, or false: O(log n)
local function index_of(player)
  if desc then return redis.call('ZREVRANK', board, player) end
  return redis.call('ZRANK', board, player)
end

-- the rank of a player at `index` holding `points`, in style o|c|d
local function rank_in(style, index, points)
  if style == 'c' then return better(points) + 1 end
  if style == 'd' then return dense_better(points) + 1 end
  return index + 1
end

-- keep the dense companion in step: one more (delta 1) or one fewer (-1) holder of `points`
local function count_points(points, delta)
  local field = num(points)
  local held = redis.call('HINCRBY', counts_key, field, delta)
  if held == 0 then
    redis.call('HDEL', counts_key, field)
    redis.call('ZREM', dense_key, field)
  elseif held == 1 and delta == 1 then
    redis.call('ZADD', dense_key, field, field)
  end
end

-- CMD key item... over a long list, 1000 items a call (Lua's unpack has a limit)
local function each_chunk(command, key, items)
  local replies = {}
  for first = 1, #items, 1000 do
    local part = redis.call(command, key, unpack(items, first, math.min(first + 999, #items)))
    for i = 1, #part do replies[#replies + 1] = part[i] end
  end
  return replies
end

local function frozen()
  return redis.call('HEXISTS', meta_key, 'frozen') == 1
end

local FROZEN = 'FASTRANK_FROZEN this season is frozen (rolled over); write to the current season'
local RANGE = 'FASTRANK_RANGE the new points do not fit the board: magnitude above '

-- the points a player holds now, or false when absent: O(1)
local function points_now(player)
  local score = redis.call('ZSCORE', board, player)
  if score then return points_of(tonumber(score)) end
  return false
end

-- the points after applying `given` by `rule` (incr|set|best) to `old`
-- (false: absent), or nil when they would not fit the board
local function points_after(rule, old, given)
  local new
  if rule == 'incr' then
    new = (old or 0) + given
  elseif rule == 'set' then
    new = given
  elseif old == false or (desc and given > old) or ((not desc) and given < old) then
    new = given
  else
    new = old
  end
  if new > max_points or new < -max_points then return nil end
  return new
end

-- write `new` points reached at `tick` when they differ from `old`, keeping
-- the dense companion in step: O(log n)
local function store_points(player, old, new, tick)
  if old ~= false and new == old then return end
  redis.call('ZADD', board, num(encode(new, tick)), player)
  if dense then
    if old then count_points(old, -1) end
    count_points(new, 1)
  end
end
