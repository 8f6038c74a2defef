"""fastrank.asyncio.Leaderboard: the leaderboard's methods as coroutines.

The same plans as :class:`fastrank.Leaderboard` (``fastrank.leaderboard``),
awaited on an asyncio client (``fastrank.asyncio.Engine``,
``redis.asyncio.Redis``, ``redis.asyncio.cluster.RedisCluster``) by
:func:`fastrank.runner.run_async`. Nothing is written twice: each method here
is the coroutine of the plans' ``twin`` of the same name (:mod:`fastrank.runner`).
"""
from __future__ import annotations

from typing import AsyncIterator, Optional, Union

from fastrank.runner import run_async
from fastrank.leaderboard.board import AsyncSubmit, BoardPlans, Entry

class Leaderboard(AsyncSubmit, BoardPlans):
    """:class:`fastrank.Leaderboard` over an asyncio client: every method is a coroutine."""

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
