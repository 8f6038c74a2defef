-- counter_resize: spread a sharded counter's increments over ARGV[1] keys;
-- "high" (the shard keys value() sums) never goes down, so no count held by
-- a key left out is lost. KEYS 1 the descriptor. Reply: the stored descriptor, flat.
local shards = tonumber(ARGV[1])
local high = tonumber(redis.call('HGET', KEYS[1], 'high') or '0')
if shards > high then high = shards end
redis.call('HSET', KEYS[1], 'shards', ARGV[1], 'high', tostring(high))
return redis.call('HGETALL', KEYS[1])
