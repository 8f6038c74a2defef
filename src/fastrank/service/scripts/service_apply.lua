-- service_apply: apply events of the score log to the board, exactly once.
-- KEYS 1..5 the board (see the prelude), 6 the id of the last event applied
-- to it (same hash tag, so the offset moves in the same atomic step), 7 the
-- flag a rebuild sets while it loads the board, 8 the set of players the
-- board has banned (their events are passed over: the offset moves past them).
-- ARGV 6 the id the offset reaches once every event given is applied (the
--      last id read from the log, which may hold other seasons' events),
--      7 n, then from 8 the n events, five words each: id, player, rule
--      (incr|set), points, tick.
-- Events at or below the offset were applied before and are skipped.
-- Reply: {the offset now, how many events were applied}, or {offset, -1}
-- without applying anything while a rebuild runs; an event whose
-- points would not fit the board stops the script with FASTRANK_RANGE, the
-- offset left just before it (the events before it stay applied).
if frozen() then return redis.error_reply(FROZEN) end
local offset_key = KEYS[6]
local offset = tonumber(redis.call('GET', offset_key) or '0')
if redis.call('EXISTS', KEYS[7]) == 1 then return {num(offset), -1} end
local upto, n = tonumber(ARGV[6]), tonumber(ARGV[7])
local applied = 0
for i = 0, n - 1 do
  local at = 8 + 5 * i
  local id = tonumber(ARGV[at])
  if id > offset and redis.call('SISMEMBER', KEYS[8], ARGV[at + 1]) == 1 then
    offset = id
  elseif id > offset then
    local player, rule, given, tick = ARGV[at + 1], ARGV[at + 2], tonumber(ARGV[at + 3]), tonumber(ARGV[at + 4])
    local old = points_now(player)
    local new = points_after(rule, old, given)
    if not new then
      redis.call('SET', offset_key, num(offset))
      return redis.error_reply(RANGE .. num(max_points))
    end
    store_points(player, old, new, tick)
    offset = id
    applied = applied + 1
  end
end
if upto > offset then offset = upto end
redis.call('SET', offset_key, num(offset))
return {num(offset), applied}
