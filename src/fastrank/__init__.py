"""fastrank: real-time leaderboards and counting with a compiled core."""
from fastrank._core import CountMinSketch, HyperLogLog, SortedSet, TopK
from fastrank._threads import get_threads, set_threads
from fastrank.engine.connect import connect
from fastrank.counters import GCounter, GCounterReplica, PNCounter, PNCounterReplica, ShardedCounter
from fastrank.engine import Engine
from fastrank.errors import (BoardConfigMismatch, PeriodClosed, PlayerBanned, PointsOutOfRange, SeasonFrozen,
                             TimeOutOfRange)
from fastrank.leaderboard import Change, Entry, Leaderboard, ShardedLeaderboard
from fastrank.leaderboard.bands import RangePartitionedLeaderboard
from fastrank import natives  # noqa: F401  (the Engine's native paths of the leaderboard's scripts, registered)
from fastrank.service import PostgresStore, SQLiteStore, ScoreService

__version__ = "0.1.0"

__all__ = ["BoardConfigMismatch", "Change", "CountMinSketch", "Engine", "Entry", "GCounter", "GCounterReplica", "HyperLogLog", "Leaderboard",
           "PNCounter", "PNCounterReplica", "PeriodClosed", "PlayerBanned", "PointsOutOfRange", "SeasonFrozen", "TimeOutOfRange", "PostgresStore", "SQLiteStore", "ScoreService", "ShardedCounter",
           "ShardedLeaderboard", "SortedSet", "TopK", "connect", "get_threads",
           "set_threads", "__version__"]
__all__ += ["RangePartitionedLeaderboard"]
