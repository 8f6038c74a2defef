"""fastrank.asyncio.SegmentedLeaderboard: the segmented board's methods as coroutines.

The plans of ``fastrank.leaderboard.segmented``, awaited on an asyncio client;
nothing is written twice.
"""
from __future__ import annotations

from fastrank.leaderboard.segmented import SegmentedBoardPlans
from fastrank.runner import AsyncFace, run_async

__all__ = ["SegmentedLeaderboard"]


class SegmentedLeaderboard(AsyncFace, SegmentedBoardPlans):
    """:class:`fastrank.SegmentedLeaderboard` over an asyncio client: every method is a coroutine."""


    async def open(self) -> "SegmentedLeaderboard":
        """Read the board's stored options and segments (writing them if the
        board is new); BoardConfigMismatch if one given differs. Every method
        does this once, before its first call."""
        await run_async(self._client, self._plan_open())
        return self

    async def _opening(self) -> None:
        if not self._opened:
            await run_async(self._client, self._plan_open())

