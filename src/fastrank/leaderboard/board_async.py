"""fastrank.asyncio.Leaderboard: the leaderboard's methods as coroutines.

The same plans as :class:`fastrank.Leaderboard` (``fastrank.leaderboard``),
awaited on an asyncio client (``fastrank.asyncio.Engine``,
``redis.asyncio.Redis``, ``redis.asyncio.cluster.RedisCluster``) by
:func:`fastrank.runner.run_async`. Nothing is written twice: each method here
is the coroutine of the plans' ``twin`` of the same name (:mod:`fastrank.runner`).
"""
from __future__ import annotations

from fastrank.leaderboard.board import AsyncSubmit, BoardPlans

from fastrank.leaderboard.snapshots import AsyncSnapshotView


class Leaderboard(AsyncSubmit, BoardPlans):
    """:class:`fastrank.Leaderboard` over an asyncio client: every method is a coroutine."""

    def at_snapshot(self, label: str) -> AsyncSnapshotView:
        """The reads of the snapshot ``label`` as coroutines (see
        :meth:`fastrank.Leaderboard.at_snapshot`)."""
        return AsyncSnapshotView(self, label)
