-- redescribe: move options of a descriptor from the values a process saw to
-- new ones, only if nobody moved them meanwhile (compare and set).
-- KEYS 1 the descriptor
-- ARGV option, expected text, new text, option, expected, new...
-- Reply: {} when written, else the stored descriptor, flat (nothing written).
for i = 1, #ARGV, 3 do
  local now = redis.call('HGET', KEYS[1], ARGV[i])
  if now == false then now = '' end
  if now ~= ARGV[i + 1] then return redis.call('HGETALL', KEYS[1]) end
end
for i = 1, #ARGV, 3 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 2])
end
return {}
