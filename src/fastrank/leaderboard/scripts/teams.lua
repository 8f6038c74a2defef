-- teams: every write of a team board (fastrank/leaderboard/teams.py), the
-- player board and the team board kept in step in one atomic script.
-- KEYS 1..5 the player board (the prelude's), 6 the team board (team -> the
--   team's encoded score), 7 and 8 its dense companion, 9 the players' teams
--   (a hash, player -> team).
-- A team's members who hold points are a sorted set KEYS[1] .. ':members:' ..
-- team (player -> the player's score on the board), under the same hash tag:
-- named here, not in KEYS, because the team is only known once read here.
-- ARGV 6 k: a team's points are the sum of its k best members' points (0: of
--   all of them), 7 the low word of new scores (the tick), 8 what:
--   submit: 9 rule (incr|set|best), 10 rank style wanted back (o|c|d, or ""),
--     11 how many overtaken players to name, 12... player, points, ...
--     Reply as submit.lua's: {new points as text, ...}, or with a style
--     {points, rank, previous rank (0 = was absent), {players passed}};
--   join: 9 team, 10 player. Reply 1;
--   leave: 10 player. Reply 1 if the player was in a team, else 0;
--   remove: 10 player, who leaves the board, their entry data and their team.
--     Reply 1 if the player was on the board, else 0.
-- Every new total, a player's or a team's, is checked before anything is written.
if frozen() then return redis.error_reply(FROZEN) end
local k, tick, what = tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8]
local player_side = {board, dense_key, counts_key}
local team_side = {KEYS[6], KEYS[7], KEYS[8]}
local teams_key = KEYS[9]
local members_prefix = KEYS[1] .. ':members:'

-- the prelude's functions work on `board` and its dense companion: point them at one side
local function on(side)
  board, dense_key, counts_key = side[1], side[2], side[3]
end

local function better_score(a, b)
  if desc then return a > b end
  return a < b
end

-- the points `team` holds now, or false when it is not on the team board: O(1)
local function team_now(team)
  on(team_side)
  local points = points_now(team)
  on(player_side)
  return points
end

-- the points of `team`, holding `now`, once its members' scores change by
-- `changes` (player -> new score, or false for a player who stops counting
-- for it), false when no member would hold points. A sum: O(c log m) for c
-- changes; the k best: O(log m + k + c), from the k + c best now (the
-- unchanged ones among the new k best are there).
local function team_points_after(team, now, changes)
  local members = members_prefix .. team
  local count, leaving = 0, false
  for _, new in pairs(changes) do
    count = count + 1
    leaving = leaving or not new
  end
  if k == 0 then
    local total = now or 0
    -- members who hold points: only a leaving one can leave none
    local held = leaving and redis.call('ZCARD', members) or 1
    for player, new in pairs(changes) do
      local old = redis.call('ZSCORE', members, player)
      if old then total, held = total - points_of(tonumber(old)), held - 1 end
      if new then total, held = total + points_of(new), held + 1 end
    end
    if held <= 0 then return false end
    return total
  end
  local best
  if desc then
    best = redis.call('ZREVRANGE', members, 0, k + count - 1, 'WITHSCORES')
  else
    best = redis.call('ZRANGE', members, 0, k + count - 1, 'WITHSCORES')
  end
  local scores = {}
  for i = 1, #best, 2 do
    if changes[best[i]] == nil then scores[#scores + 1] = tonumber(best[i + 1]) end
  end
  for _, new in pairs(changes) do
    if new then scores[#scores + 1] = new end
  end
  if #scores == 0 then return false end
  table.sort(scores, better_score)
  local total = 0
  for i = 1, math.min(k, #scores) do total = total + points_of(scores[i]) end
  return total
end

-- every moved team's points now and after (team -> points or false), or nil
-- when one would not fit
local function teams_after(moves)
  local before, after = {}, {}
  for team, changes in pairs(moves) do
    before[team] = team_now(team)
    local new = team_points_after(team, before[team], changes)
    if new and (new > max_points or new < -max_points) then return nil end
    after[team] = new
  end
  return before, after
end

-- write the members' new scores and the teams' new points: O(log n) a change
local function write_teams(moves, before, after)
  for team, changes in pairs(moves) do
    local members = members_prefix .. team
    for player, new in pairs(changes) do
      if new then
        redis.call('ZADD', members, num(new), player)
      else
        redis.call('ZREM', members, player)
      end
    end
    on(team_side)
    local old = before[team]
    if after[team] then
      store_points(team, old, after[team], tick)
    elseif old then
      redis.call('ZREM', board, team)
      if dense then count_points(old, -1) end
    end
    on(player_side)
  end
end

local TEAM_RANGE = 'FASTRANK_RANGE a team\'s new points do not fit the board: magnitude above '

if what ~= 'submit' then
  local player = ARGV[10]
  local old_team = redis.call('HGET', teams_key, player)
  local new_team = what == 'join' and ARGV[9]
  if new_team and new_team == old_team then return 1 end
  local score = redis.call('ZSCORE', board, player)
  local moves = {}
  if score and old_team then moves[old_team] = {[player] = false} end
  if score and new_team then moves[new_team] = {[player] = tonumber(score)} end
  local before, after = teams_after(moves)
  if not before then return redis.error_reply(TEAM_RANGE .. num(max_points)) end
  if new_team then
    redis.call('HSET', teams_key, player, new_team)
  else
    redis.call('HDEL', teams_key, player)
  end
  if what == 'remove' then
    redis.call('HDEL', info_key, player)
    if score then
      redis.call('ZREM', board, player)
      if dense then count_points(points_of(tonumber(score)), -1) end
    end
  end
  write_teams(moves, before, after)
  if what == 'leave' then return old_team and 1 or 0 end
  if what == 'remove' then return score and 1 or 0 end
  return 1
end

local rule, style, limit = ARGV[9], ARGV[10], tonumber(ARGV[11])
-- pass 1: every player's new points, checked (a player named twice adds up)
local olds, news, order, reply = {}, {}, {}, {}
for i = 12, #ARGV, 2 do
  local player, given = ARGV[i], tonumber(ARGV[i + 1])
  if olds[player] == nil then
    olds[player] = points_now(player)
    news[player] = olds[player]
    order[#order + 1] = player
  end
  local new_points = points_after(rule, news[player], given)
  if not new_points then return redis.error_reply(RANGE .. num(max_points)) end
  news[player] = new_points
  reply[#reply + 1] = num(new_points)
end

-- pass 2: the teams of the players whose points change, checked
local moves = {}
for _, player in ipairs(order) do
  local team = olds[player] ~= news[player] and redis.call('HGET', teams_key, player)
  if team then
    moves[team] = moves[team] or {}
    moves[team][player] = encode(news[player], tick)
  end
end
local before, after = teams_after(moves)
if not before then return redis.error_reply(TEAM_RANGE .. num(max_points)) end

local single = ARGV[12]
local previous_index, previous_rank = false, 0
if style ~= '' and olds[single] then
  previous_index = index_of(single)
  previous_rank = rank_in(style, previous_index, olds[single])
end

-- pass 3: write what changed
for _, player in ipairs(order) do
  store_points(player, olds[player], news[player], tick)
end
write_teams(moves, before, after)

if style == '' then return reply end
local index = index_of(single)
local passed = {}
if previous_index and index < previous_index and limit > 0 then
  local last = math.min(previous_index, index + limit)
  if desc then
    passed = redis.call('ZREVRANGE', board, index + 1, last)
  else
    passed = redis.call('ZRANGE', board, index + 1, last)
  end
end
return {reply[1], rank_in(style, index, news[single]), previous_rank, passed}
