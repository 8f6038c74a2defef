"""fastrank.asyncio.ShardedLeaderboard: the sharded board's methods as coroutines.

The plans of ``fastrank.leaderboard.sharded``, awaited on an asyncio client; nothing is
written twice.
"""
from __future__ import annotations

from typing import AsyncIterator, Optional, Union

from fastrank.runner import run_async
from fastrank.leaderboard.board import AsyncSubmit, Entry
from fastrank.leaderboard.sharded import ShardedBoardPlans

__all__ = ["ShardedLeaderboard"]


class ShardedLeaderboard(AsyncSubmit, ShardedBoardPlans):
    """:class:`fastrank.ShardedLeaderboard` over an asyncio client."""


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
