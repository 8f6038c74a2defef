"""fastrank.asyncio.TeamLeaderboard: the team board's methods as coroutines.

The same plans as :class:`fastrank.TeamLeaderboard` (``fastrank.leaderboard.teams``),
awaited on an asyncio client by :func:`fastrank.runner.run_async`.
"""
from __future__ import annotations

from fastrank.leaderboard.board import AsyncSubmit
from fastrank.leaderboard.teams import TeamPlans
from fastrank.runner import awaiting_opened


class TeamLeaderboard(AsyncSubmit, TeamPlans):
    """:class:`fastrank.TeamLeaderboard` over an asyncio client: every method is a coroutine."""

    submit_many = awaiting_opened(TeamPlans._plan_submit_many)
    set_points = awaiting_opened(TeamPlans._plan_set_points)
    remove = awaiting_opened(TeamPlans._plan_remove)
    set_info = awaiting_opened(TeamPlans._plan_set_info)
    rollover = awaiting_opened(TeamPlans._plan_rollover)
    score = awaiting_opened(TeamPlans._plan_score)
    subscore = awaiting_opened(TeamPlans._plan_subscore)
    reached = awaiting_opened(TeamPlans._plan_reached)
    rank = awaiting_opened(TeamPlans._plan_rank)
    count = awaiting_opened(TeamPlans._plan_count)
    rank_for = awaiting_opened(TeamPlans._plan_rank_for)
    top = awaiting_opened(TeamPlans._plan_top)
    standings = awaiting_opened(TeamPlans._plan_standings)
    page = awaiting_opened(TeamPlans._plan_page)
    around = awaiting_opened(TeamPlans._plan_around)
    friends = awaiting_opened(TeamPlans._plan_friends)
    percentile = awaiting_opened(TeamPlans._plan_percentile)
    bucket = awaiting_opened(TeamPlans._plan_bucket)
    info = awaiting_opened(TeamPlans._plan_info)
    join = awaiting_opened(TeamPlans._plan_join)
    leave = awaiting_opened(TeamPlans._plan_leave)
    team_of = awaiting_opened(TeamPlans._plan_team_of)
    team_score = awaiting_opened(TeamPlans._plan_team_score)
    team_rank = awaiting_opened(TeamPlans._plan_team_rank)
    team_top = awaiting_opened(TeamPlans._plan_team_top)
    team_count = awaiting_opened(TeamPlans._plan_team_count)
    members = awaiting_opened(TeamPlans._plan_members)
