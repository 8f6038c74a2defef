-- tie_place: where a (score, member) falls on one shard of a sharded board,
-- without reading the players tied on that score: O(log^2 n).
-- KEYS 1 the shard's board (a sorted set).
-- ARGV 1 the encoded score (exact text), 2 the member, 3 "1" when higher is
--      better, 4 how many tied neighbours to return on each side (0 = none).
-- Returns {ahead, present, rows}: how many of the shard's players rank
-- before (score, member) in the board's order (the member excluded), 1 when
-- the member itself holds that score here (else 0), and the tied players
-- around the member's place in the tie run, flat (member, score, ...),
-- in ascending member byte order.
local key, score, member = KEYS[1], ARGV[1], ARGV[2]
local desc, window = ARGV[3] == '1', tonumber(ARGV[4])

local below = redis.call('ZCOUNT', key, '-inf', '(' .. score)  -- index of the tie run's first
local ties = redis.call('ZCOUNT', key, score, score)

local function tied(i)
  return redis.call('ZRANGE', key, below + i, below + i)[1]
end

-- the tied members before `member` in byte order: binary search over the run
local low, high = 0, ties
while low < high do
  local mid = math.floor((low + high) / 2)
  if bytes_before(tied(mid), member) then low = mid + 1 else high = mid end
end
local present = 0
if low < ties and tied(low) == member then present = 1 end

local ahead
if desc then
  ahead = redis.call('ZCOUNT', key, '(' .. score, '+inf') + ties - low - present
else
  ahead = below + low
end

local rows = {}
if window > 0 and ties > 0 then
  local first = math.max(0, low - window)
  local last = math.min(ties - 1, low + present + window - 1)
  if first <= last then
    rows = redis.call('ZRANGE', key, below + first, below + last, 'WITHSCORES')
  end
end
return {ahead, present, rows}
