"""fastrank.asyncio's counters: the plans of ``fastrank.counters`` as coroutines.

Each method awaits the plan of the same name on an asyncio client
(``fastrank.asyncio.Engine``, ``redis.asyncio.Redis``, its cluster client);
nothing is written twice.
"""
from __future__ import annotations

from fastrank.runner import AsyncFace, run_async
from fastrank.counters.counters import GCounterReplicaPlans, PNCounterReplicaPlans, ShardedCounterPlans

__all__ = ["GCounterReplica", "PNCounterReplica", "ShardedCounter"]


class ShardedCounter(AsyncFace, ShardedCounterPlans):
    """:class:`fastrank.ShardedCounter` over an asyncio client."""


    async def open(self) -> "ShardedCounter":
        """Read the stored shard count (writing it if the counter is new);
        every method does this before its first call."""
        await run_async(self._client, self._plan_open())
        return self

    async def _opening(self) -> None:
        await run_async(self._client, self._plan_open())


class GCounterReplica(AsyncFace, GCounterReplicaPlans):
    """:class:`fastrank.GCounterReplica` over an asyncio client."""



class PNCounterReplica(AsyncFace, PNCounterReplicaPlans):
    """:class:`fastrank.PNCounterReplica` over an asyncio client."""

