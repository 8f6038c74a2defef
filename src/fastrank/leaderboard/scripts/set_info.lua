-- set_info: store a player's entry data, refused on a frozen season like
-- every other write. ARGV 6 player, 7 the data as JSON text, 8 expiry
-- (unix ms, 0 = none). Reply: 1.
if frozen() then return redis.error_reply(FROZEN) end
redis.call('HSET', info_key, ARGV[6], ARGV[7])
local expire_at = tonumber(ARGV[8])
if expire_at > 0 then redis.call('PEXPIREAT', info_key, expire_at) end
return 1
