"""fastrank.asyncio.RangePartitionedLeaderboard: the banded board's methods as coroutines.

The plans of ``fastrank.leaderboard.bands``, awaited on an asyncio client; nothing is
written twice.
"""
from __future__ import annotations

from fastrank.leaderboard.bands import BandPlans
from fastrank.runner import AsyncFace, run_async

__all__ = ["RangePartitionedLeaderboard"]


class RangePartitionedLeaderboard(AsyncFace, BandPlans):
    """:class:`fastrank.RangePartitionedLeaderboard` over an asyncio client."""


    async def open(self) -> "RangePartitionedLeaderboard":
        """Read the board's stored options and layout (writing them if the board
        is new); BoardConfigMismatch if an option or the bounds given differ.
        Every method opens the board before its first call."""
        await run_async(self._client, self._plan_open())
        return self

