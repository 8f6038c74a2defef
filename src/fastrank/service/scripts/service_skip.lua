-- service_skip: move a board's applied offset past events the applier
-- rejected (marked in the store with their reason), never back.
-- KEYS 1..5 the board (see the prelude), 6 the id of the last event applied
-- to it. ARGV 6 the id the offset reaches.
-- Reply: the offset now.
local offset = tonumber(redis.call('GET', KEYS[6]) or '0')
local upto = tonumber(ARGV[6])
if upto > offset then
  offset = upto
  redis.call('SET', KEYS[6], num(offset))
end
return num(offset)
