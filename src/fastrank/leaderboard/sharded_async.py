"""fastrank.asyncio.ShardedLeaderboard: the sharded board's methods as coroutines.

The plans of ``fastrank.leaderboard.sharded``, awaited on an asyncio client; nothing is
written twice.
"""
from __future__ import annotations

from typing import AsyncIterator, Optional, Union

from fastrank.runner import awaiting, run_async
from fastrank.leaderboard.board import AsyncSubmit, Entry
from fastrank.leaderboard.sharded import ShardedBoardPlans, guarded

__all__ = ["ShardedLeaderboard"]


class ShardedLeaderboard(AsyncSubmit, ShardedBoardPlans):
    """:class:`fastrank.ShardedLeaderboard` over an asyncio client."""

    submit_many = awaiting(guarded(ShardedBoardPlans._plan_submit_many))
    set_points = awaiting(guarded(ShardedBoardPlans._plan_set_points))
    remove = awaiting(guarded(ShardedBoardPlans._plan_remove))
    set_info = awaiting(guarded(ShardedBoardPlans._plan_set_info))
    rollover = awaiting(ShardedBoardPlans._plan_rollover)
    score = awaiting(guarded(ShardedBoardPlans._plan_score))
    rank = awaiting(guarded(ShardedBoardPlans._plan_rank))
    count = awaiting(guarded(ShardedBoardPlans._plan_count))
    rank_for = awaiting(guarded(ShardedBoardPlans._plan_rank_for))
    top = awaiting(guarded(ShardedBoardPlans._plan_top))
    standings = awaiting(guarded(ShardedBoardPlans._plan_standings))
    page = awaiting(guarded(ShardedBoardPlans._plan_page))
    around = awaiting(guarded(ShardedBoardPlans._plan_around))
    friends = awaiting(guarded(ShardedBoardPlans._plan_friends))
    percentile = awaiting(guarded(ShardedBoardPlans._plan_percentile))
    bucket = awaiting(guarded(ShardedBoardPlans._plan_bucket))
    info = awaiting(guarded(ShardedBoardPlans._plan_info))
    reshard = awaiting(ShardedBoardPlans._plan_reshard)

    async def iter(self, batch: int = 1000, *, ranking: Optional[str] = None,
                   season: Optional[Union[str, int]] = None) -> AsyncIterator[Entry]:
        """Every entry in rank order (``async for``): a k-way merge of the shards."""
        if not self._opened:
            await run_async(self._client, self._plan_open())
        ranker = self.boards[0]._iter_start(batch, ranking)
        state = self._iter_state()
        position = 0
        while True:
            pairs = await run_async(self._client, self._next_batch(state, batch, season))
            for entry in self.boards[0].entries_from(ranker, position, pairs):
                yield entry
            position += len(pairs)
            if len(pairs) < batch:
                return
