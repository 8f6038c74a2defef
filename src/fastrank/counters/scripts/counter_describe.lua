-- counter_describe: a sharded counter's descriptor, written once (no prelude).
-- KEYS 1 the descriptor: a hash ("shards": the keys incr spreads over,
--        "high": how many shard keys the counter ever had: value() sums them)
-- ARGV field, text, field, text... (the descriptor a new counter gets)
-- Reply: the stored descriptor, flat (field, text, ...).
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], unpack(ARGV))
end
return redis.call('HGETALL', KEYS[1])
