-- segmented boards: the part every segmented script shares (after the board
-- prelude, whose KEYS 1..5 are a segment's board keys, when the script has them).
--
-- The last four KEYS (one hash tag with every segment: {lb:<name>}):
--   where:  a hash, player -> the segment they are in
--   global: a sorted set, the best `size` entries over every segment
--   state:  a hash, "stale" when the global key may miss someone (rebuilt on read)
--   hist:   a hash, bucket -> players in it over every segment (bucket width > 0 only)
-- A segment <s>'s board is the sorted set <prefix><s>, its histogram the
-- hash <prefix><s>:hist (prefix: "{lb:<name>}:seg:"), built here from the
-- segment names (plain [A-Za-z0-9_.-] text, so they need no escaping).
local where_key, global_key = KEYS[#KEYS - 3], KEYS[#KEYS - 2]
local state_key, hist_key = KEYS[#KEYS - 1], KEYS[#KEYS]

-- is encoded score a ranked before b?
local function ahead(a, b)
  if desc then return a > b end
  return a < b
end

-- one more (delta 1) or one fewer (-1) player at `points` in the histograms
-- of the whole board and of `segment`: O(1)
local function hist_add(prefix, segment, points, width, delta)
  if width <= 0 then return end
  local field = num(math.floor(points / width))
  for _, key in ipairs({hist_key, prefix .. segment .. ':hist'}) do
    if redis.call('HINCRBY', key, field, delta) == 0 then redis.call('HDEL', key, field) end
  end
end

local function global_stale()
  return redis.call('HEXISTS', state_key, 'stale') == 1
end

-- drop the global key's entries past the best `size`
local function global_trim(size)
  local extra = redis.call('ZCARD', global_key) - size
  if extra <= 0 then return end
  if desc then
    redis.call('ZREMRANGEBYRANK', global_key, 0, extra - 1)
  else
    redis.call('ZREMRANGEBYRANK', global_key, size, -1)
  end
end

-- a player's entry now has encoded `score`: keep the global key exact, or
-- mark it stale when who enters it is unknown (an entry in it got worse
-- while it was full): O(log size)
local function global_write(player, score, size)
  if global_stale() then return end
  local count = redis.call('ZCARD', global_key)
  local held = redis.call('ZSCORE', global_key, player)
  if held and count >= size and ahead(tonumber(held), score) then
    redis.call('HSET', state_key, 'stale', '1')
    return
  end
  redis.call('ZADD', global_key, num(score), player)
  global_trim(size)
end

-- a player left the board: keep the global key exact, or mark it stale
local function global_drop(player, size)
  if global_stale() or not redis.call('ZSCORE', global_key, player) then return end
  if redis.call('ZCARD', global_key) >= size then
    redis.call('HSET', state_key, 'stale', '1')
  else
    redis.call('ZREM', global_key, player)
  end
end
