"""Counters over any redis-py client: ``ShardedCounter`` (one hot counter
spread over shards), and the G-Counter / PN-Counter CRDTs in memory
(``GCounter``, ``PNCounter``) or on a server (``GCounterReplica``,
``PNCounterReplica``). ``counters_async`` holds the asyncio faces;
``scripts/`` the Lua merge script."""
from fastrank.counters.counters import GCounter, GCounterReplica, PNCounter, PNCounterReplica, ShardedCounter

__all__ = ["GCounter", "GCounterReplica", "PNCounter", "PNCounterReplica", "ShardedCounter"]
