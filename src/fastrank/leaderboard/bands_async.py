"""fastrank.asyncio.RangePartitionedLeaderboard: the banded board's methods as coroutines.

The plans of ``fastrank.leaderboard.bands``, awaited on an asyncio client; nothing is
written twice.
"""
from __future__ import annotations

from fastrank.leaderboard.bands import BandPlans
from fastrank.leaderboard.sharded import guarded
from fastrank.runner import awaiting, run_async

__all__ = ["RangePartitionedLeaderboard"]


class RangePartitionedLeaderboard(BandPlans):
    """:class:`fastrank.RangePartitionedLeaderboard` over an asyncio client."""

    is_async = True  # the face this class is: checked against the client (runner.checked_client)

    async def open(self) -> "RangePartitionedLeaderboard":
        """Read the board's stored options and layout (writing them if the board
        is new); BoardConfigMismatch if an option or the bounds given differ.
        Every method opens the board before its first call."""
        await run_async(self._client, self._plan_open())
        return self

    submit = awaiting(guarded(BandPlans._plan_submit))
    submit_many = awaiting(guarded(BandPlans._plan_submit_many))
    set_points = awaiting(guarded(BandPlans._plan_set_points))
    remove = awaiting(guarded(BandPlans._plan_remove))
    score = awaiting(guarded(BandPlans._plan_score))
    rank = awaiting(guarded(BandPlans._plan_rank))
    rank_range = awaiting(guarded(BandPlans._plan_rank_range))
    bucket = awaiting(guarded(BandPlans._plan_bucket))
    count = awaiting(guarded(BandPlans._plan_count))
    top = awaiting(guarded(BandPlans._plan_top))
    around = awaiting(guarded(BandPlans._plan_around))
    band_of = awaiting(guarded(BandPlans._plan_band_of))
    band_sizes = awaiting(guarded(BandPlans._plan_band_sizes))
    rebalance = awaiting(BandPlans._plan_rebalance)
