"""fastrank.asyncio's counters: the plans of ``fastrank.counters`` as coroutines.

Each method awaits the plan of the same name on an asyncio client
(``fastrank.asyncio.Engine``, ``redis.asyncio.Redis``, its cluster client);
nothing is written twice.
"""
from __future__ import annotations

from fastrank.runner import awaiting, awaiting_opened, run_async
from fastrank.counters.counters import GCounterReplicaPlans, PNCounterReplicaPlans, ShardedCounterPlans

__all__ = ["GCounterReplica", "PNCounterReplica", "ShardedCounter"]


class ShardedCounter(ShardedCounterPlans):
    """:class:`fastrank.ShardedCounter` over an asyncio client."""

    is_async = True  # the face this class is: checked against the client (runner.checked_client)

    incr = awaiting_opened(ShardedCounterPlans._plan_incr)
    decr = awaiting_opened(ShardedCounterPlans._plan_decr)
    value = awaiting_opened(ShardedCounterPlans._plan_value)
    resize = awaiting_opened(ShardedCounterPlans._plan_resize)
    rollup = awaiting_opened(ShardedCounterPlans._plan_rollup)
    cached_value = awaiting(ShardedCounterPlans._plan_cached_value)

    async def open(self) -> "ShardedCounter":
        """Read the stored shard count (writing it if the counter is new);
        every method does this before its first call."""
        await run_async(self._client, self._plan_open())
        return self

    async def _opening(self) -> None:
        await run_async(self._client, self._plan_open())


class GCounterReplica(GCounterReplicaPlans):
    """:class:`fastrank.GCounterReplica` over an asyncio client."""

    is_async = True  # the face this class is: checked against the client (runner.checked_client)

    increment = awaiting(GCounterReplicaPlans._plan_increment)
    merge = awaiting(GCounterReplicaPlans._plan_merge)
    state = awaiting(GCounterReplicaPlans._plan_state)
    value = awaiting(GCounterReplicaPlans._plan_value)


class PNCounterReplica(PNCounterReplicaPlans):
    """:class:`fastrank.PNCounterReplica` over an asyncio client."""

    is_async = True  # the face this class is: checked against the client (runner.checked_client)

    increment = awaiting(PNCounterReplicaPlans._plan_increment)
    decrement = awaiting(PNCounterReplicaPlans._plan_decrement)
    merge = awaiting(PNCounterReplicaPlans._plan_merge)
    state = awaiting(PNCounterReplicaPlans._plan_state)
    value = awaiting(PNCounterReplicaPlans._plan_value)
