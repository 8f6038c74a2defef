"""fastrank.asyncio.ShardedLeaderboard: the sharded board's methods as coroutines.

The plans of ``fastrank.leaderboard.sharded``, awaited on an asyncio client; nothing is
written twice.
"""
from __future__ import annotations

from fastrank.leaderboard.board import AsyncSubmit
from fastrank.leaderboard.sharded import ShardedBoardPlans

__all__ = ["ShardedLeaderboard"]


class ShardedLeaderboard(AsyncSubmit, ShardedBoardPlans):
    """:class:`fastrank.ShardedLeaderboard` over an asyncio client."""
