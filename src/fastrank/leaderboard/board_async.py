"""fastrank.asyncio.Leaderboard: the leaderboard's methods as coroutines.

The same plans as :class:`fastrank.Leaderboard` (``fastrank.leaderboard``),
awaited on an asyncio client (``fastrank.asyncio.Engine``,
``redis.asyncio.Redis``, ``redis.asyncio.cluster.RedisCluster``) by
:func:`fastrank.runner.run_async`. Nothing is written twice: each method here
is generated from the plan of the same name.
"""
from __future__ import annotations

from typing import AsyncIterator, Optional, Union

from fastrank.runner import awaiting_opened, run_async
from fastrank.leaderboard.board import AsyncSubmit, BoardPlans, Entry
from fastrank.leaderboard.snapshots import AsyncSnapshotView

class Leaderboard(AsyncSubmit, BoardPlans):
    """:class:`fastrank.Leaderboard` over an asyncio client: every method is a coroutine."""

    submit_many = awaiting_opened(BoardPlans._plan_submit_many)
    set_points = awaiting_opened(BoardPlans._plan_set_points)
    remove = awaiting_opened(BoardPlans._plan_remove)
    set_info = awaiting_opened(BoardPlans._plan_set_info)
    rollover = awaiting_opened(BoardPlans._plan_rollover)
    score = awaiting_opened(BoardPlans._plan_score)
    subscore = awaiting_opened(BoardPlans._plan_subscore)
    reached = awaiting_opened(BoardPlans._plan_reached)
    rank = awaiting_opened(BoardPlans._plan_rank)
    count = awaiting_opened(BoardPlans._plan_count)
    rank_for = awaiting_opened(BoardPlans._plan_rank_for)
    top = awaiting_opened(BoardPlans._plan_top)
    standings = awaiting_opened(BoardPlans._plan_standings)
    page = awaiting_opened(BoardPlans._plan_page)
    around = awaiting_opened(BoardPlans._plan_around)
    friends = awaiting_opened(BoardPlans._plan_friends)
    percentile = awaiting_opened(BoardPlans._plan_percentile)
    bucket = awaiting_opened(BoardPlans._plan_bucket)
    info = awaiting_opened(BoardPlans._plan_info)
    snapshot = awaiting_opened(BoardPlans._plan_snapshot)
    snapshots = awaiting_opened(BoardPlans._plan_snapshots)
    drop_snapshot = awaiting_opened(BoardPlans._plan_drop_snapshot)
    rank_change = awaiting_opened(BoardPlans._plan_rank_change)

    def at_snapshot(self, label: str) -> AsyncSnapshotView:
        """The reads of the snapshot ``label`` as coroutines (see
        :meth:`fastrank.Leaderboard.at_snapshot`)."""
        return AsyncSnapshotView(self, label)

    async def iter(self, batch: int = 1000, *, ranking: Optional[str] = None,
                   season: Optional[Union[str, int]] = None) -> AsyncIterator[Entry]:
        """Every entry in rank order, ``batch`` at a time (``async for``); see
        :meth:`fastrank.Leaderboard.iter`."""
        await self._opening()
        ranker = self._iter_start(batch, ranking)
        start = 0
        while True:
            pairs = await run_async(self._client, self.slice_plan(start, batch, season))
            for entry in self.entries_from(ranker, start, pairs):
                yield entry
            if len(pairs) < batch:
                return
            start += batch
