"""fastrank.asyncio.TeamLeaderboard: the team board's methods as coroutines.

The same plans as :class:`fastrank.TeamLeaderboard` (``fastrank.leaderboard.teams``),
awaited on an asyncio client by :func:`fastrank.runner.run_async`.
"""
from __future__ import annotations

from fastrank.leaderboard.board import AsyncSubmit
from fastrank.leaderboard.teams import TeamPlans


class TeamLeaderboard(AsyncSubmit, TeamPlans):
    """:class:`fastrank.TeamLeaderboard` over an asyncio client: every method is a coroutine."""

