"""fastrank: real-time leaderboards and counting with a compiled core."""
from fastrank._core import CountMinSketch, HyperLogLog, SortedSet, TopK
from fastrank._threads import get_threads, set_threads
from fastrank.engine.connect import connect
from fastrank.counters import GCounter, GCounterReplica, PNCounter, PNCounterReplica, ShardedCounter
from fastrank.engine import Engine
from fastrank.errors import (BoardConfigMismatch, PeriodClosed, PlayerBanned, PointsOutOfRange, SeasonFrozen,
                             SnapshotExists, TimeOutOfRange, UnknownSnapshot)
from fastrank.leaderboard import (Change, Entry, Leaderboard, RankChange, RollingLeaderboard, ShardedLeaderboard,
                                  SnapshotInfo)
from fastrank.leaderboard.bands import RangePartitionedLeaderboard
from fastrank.leaderboard.segmented import SegmentedLeaderboard
from fastrank import natives  # noqa: F401  (the Engine's native paths of the leaderboard's scripts, registered)
from fastrank.leaderboard.teams import TeamLeaderboard
from fastrank.service import PostgresStore, SQLiteStore, ScoreService

__version__ = "0.1.0"

__all__ = ["BoardConfigMismatch", "Change", "CountMinSketch", "Engine", "Entry", "GCounter", "GCounterReplica",
           "HyperLogLog", "Leaderboard", "PNCounter", "PNCounterReplica", "PeriodClosed", "PlayerBanned",
           "PointsOutOfRange", "PostgresStore", "RangePartitionedLeaderboard", "RankChange", "RollingLeaderboard", "SQLiteStore", "ScoreService",
           "SeasonFrozen", "SegmentedLeaderboard", "ShardedCounter", "ShardedLeaderboard", "SnapshotExists",
           "SnapshotInfo", "SortedSet", "TeamLeaderboard", "TimeOutOfRange", "TopK", "UnknownSnapshot", "connect", "get_threads",
           "set_threads", "__version__"]
