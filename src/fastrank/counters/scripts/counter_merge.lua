-- counter_merge: merge a G-Counter (or the two halves of a PN-Counter) into
-- hashes of node id -> count, keeping, node by node, the larger count.
-- KEYS: one hash per half (one hash tag, so a cluster runs it on one node).
-- ARGV: for each key in turn, the number of pairs n, then n pairs node, count.
-- Counts are canonical decimals below 2^63 and are compared as text (longer is
-- larger, then byte order), so no count goes through a Lua double.
-- Reply: how many entries grew.
local function greater(a, b)
  if #a ~= #b then return #a > #b end
  return a > b
end

local grew = 0
local at = 1
for k = 1, #KEYS do
  local pairs_left = tonumber(ARGV[at])
  at = at + 1
  for _ = 1, pairs_left do
    local node, count = ARGV[at], ARGV[at + 1]
    at = at + 2
    local current = redis.call('HGET', KEYS[k], node) or '0'
    if greater(count, current) then
      redis.call('HSET', KEYS[k], node, count)
      grew = grew + 1
    end
  end
end
return grew
