-- service_remove: take a player off one season of a board for the score
-- service (erase and ban), whatever the season's state (a frozen season too).
-- KEYS 1..5 the season's board (see the prelude), 6 the set of players the
-- board has banned, 7 the board a rebuild writes beside it (same hash tag).
-- ARGV 6 the player, 7 what to do:
--   "erase": the player leaves the board (the dense counts kept right), its
--            entry data, the banned set and a rebuild's board;
--   "ban":   the player leaves the board and a rebuild's board and joins the
--            banned set (the applier skips their events: service_apply);
--   "unban": the player leaves the banned set.
-- Reply: 1 if the player was on the board, else 0.
local player, mode = ARGV[6], ARGV[7]
if mode == 'unban' then
  redis.call('SREM', KEYS[6], player)
  return 0
end
if mode == 'erase' then
  redis.call('HDEL', info_key, player)
  redis.call('SREM', KEYS[6], player)
else
  redis.call('SADD', KEYS[6], player)
end
if KEYS[7] ~= board then redis.call('ZREM', KEYS[7], player) end
local old = redis.call('ZSCORE', board, player)
if not old then return 0 end
redis.call('ZREM', board, player)
if dense then count_points(points_of(tonumber(old)), -1) end
return 1
