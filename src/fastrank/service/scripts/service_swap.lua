-- service_swap: put a board a rebuild wrote beside the live one in its place,
-- in one atomic step.
-- KEYS 1..5 the board (see the prelude), 6 the id of the last event applied
-- to it, 7 the flag the rebuild set, 8..10 the new board, its distinct
-- values and their counts (written beside keys 1..3, same hash tag).
-- ARGV 6 the event id the new board holds everything up to.
-- Each of keys 1..3 becomes its new counterpart (RENAME), or is deleted when
-- the rebuild wrote none (an empty season, a board without the dense
-- companion); then the offset moves to ARGV 6 and the flag goes, so the
-- appliers resume on the new board after exactly that event.
-- Reply: 1.
local fresh = {KEYS[8], KEYS[9], KEYS[10]}
local live = {KEYS[1], KEYS[2], KEYS[3]}
for i = 1, 3 do
  if redis.call('EXISTS', fresh[i]) == 1 then
    redis.call('RENAME', fresh[i], live[i])
  else
    redis.call('DEL', live[i])
  end
end
redis.call('SET', KEYS[6], ARGV[6])
redis.call('DEL', KEYS[7])
return 1
