-- snapshot: a frozen copy of a board under a label (not a board script: no prelude).
-- KEYS 1 the board, 2 its dense companion, 3 the copy, 4 the copy's dense
--      companion, 5 the board's snapshots: a hash, label -> unix seconds taken
-- ARGV 1 the label, 2 the time taken (unix seconds)
-- Reply: -1 when the label is taken already (nothing written), else the
-- number of players copied. The copies expire with the board (a season kept
-- for a while keeps its snapshots as long).
if redis.call('HEXISTS', KEYS[5], ARGV[1]) == 1 then return -1 end
redis.call('DEL', KEYS[3], KEYS[4])
for i = 1, 2 do
  if redis.call('EXISTS', KEYS[i]) == 1 then redis.call('COPY', KEYS[i], KEYS[i + 2]) end
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then
  for i = 3, 5 do redis.call('PEXPIRE', KEYS[i], ttl) end
end
redis.call('HSET', KEYS[5], ARGV[1], ARGV[2])
return redis.call('ZCARD', KEYS[3])
