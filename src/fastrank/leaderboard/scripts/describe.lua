-- describe: a board's descriptor, written once (not a board script: no prelude).
-- KEYS 1 the descriptor: a hash, option -> text
-- ARGV option, text, option, text... (the descriptor a new board gets)
-- Reply: the stored descriptor, flat (option, text, ...): the one written
-- now if there was none, else the one stored before (left as it was).
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], unpack(ARGV))
end
return redis.call('HGETALL', KEYS[1])
