"""fastrank.asyncio: the asyncio faces of fastrank.

- ``Engine``, ``Pipeline``, ``connect``: the in-process engine behind
  redis.asyncio's API (``fastrank.engine.asyncio``);
- ``Leaderboard``, ``ShardedLeaderboard``, ``SegmentedLeaderboard``, ``RangePartitionedLeaderboard``,
  ``RollingLeaderboard``, ``TeamLeaderboard``, ``ShardedCounter``, ``GCounterReplica``,
  ``PNCounterReplica``, ``ScoreService``: the domain classes over an asyncio
  client (this Engine, ``redis.asyncio.Redis`` or
  ``redis.asyncio.cluster.RedisCluster``), the same logic as the sync ones.
"""
from fastrank.counters.counters_async import GCounterReplica, PNCounterReplica, ShardedCounter
from fastrank.engine.asyncio import Engine, Pipeline, connect
from fastrank.leaderboard.bands_async import RangePartitionedLeaderboard
from fastrank.leaderboard.board_async import Leaderboard
from fastrank.leaderboard.rolling_async import RollingLeaderboard
from fastrank.leaderboard.segmented_async import SegmentedLeaderboard
from fastrank.leaderboard.sharded_async import ShardedLeaderboard
from fastrank.leaderboard.teams_async import TeamLeaderboard
from fastrank.service.service_async import ScoreService

__all__ = ["Engine", "GCounterReplica", "Leaderboard", "PNCounterReplica", "Pipeline", "RangePartitionedLeaderboard", "RollingLeaderboard",
           "ScoreService", "SegmentedLeaderboard", "ShardedCounter", "ShardedLeaderboard", "TeamLeaderboard", "connect"]
