"""fastrank.asyncio.SegmentedLeaderboard: the segmented board's methods as coroutines.

The plans of ``fastrank.leaderboard.segmented``, awaited on an asyncio client;
nothing is written twice.
"""
from __future__ import annotations

from fastrank.leaderboard.segmented import SegmentedBoardPlans
from fastrank.runner import awaiting_opened, run_async

__all__ = ["SegmentedLeaderboard"]


class SegmentedLeaderboard(SegmentedBoardPlans):
    """:class:`fastrank.SegmentedLeaderboard` over an asyncio client: every method is a coroutine."""

    is_async = True  # the face this class is: checked against the client (runner.checked_client)

    async def open(self) -> "SegmentedLeaderboard":
        """Read the board's stored options and segments (writing them if the
        board is new); BoardConfigMismatch if one given differs. Every method
        does this once, before its first call."""
        await run_async(self._client, self._plan_open())
        return self

    async def _opening(self) -> None:
        if not self._opened:
            await run_async(self._client, self._plan_open())

    submit = awaiting_opened(SegmentedBoardPlans._plan_submit)
    remove = awaiting_opened(SegmentedBoardPlans._plan_remove)
    refresh = awaiting_opened(SegmentedBoardPlans._plan_refresh)
    segment_of = awaiting_opened(SegmentedBoardPlans._plan_segment_of)
    score = awaiting_opened(SegmentedBoardPlans._plan_score)
    rank = awaiting_opened(SegmentedBoardPlans._plan_rank)
    top = awaiting_opened(SegmentedBoardPlans._plan_top)
    count = awaiting_opened(SegmentedBoardPlans._plan_count)
    global_top = awaiting_opened(SegmentedBoardPlans._plan_global_top)
    global_rank = awaiting_opened(SegmentedBoardPlans._plan_global_rank)
