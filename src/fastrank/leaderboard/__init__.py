"""Leaderboards over any redis-py client (the Engine, a Redis, a Redis Cluster).

- ``board``: :class:`Leaderboard`, :class:`Entry`, :class:`Change`;
- ``sharded``: :class:`ShardedLeaderboard`, hash-sharded with scatter-gather;
- ``segmented``: ``SegmentedLeaderboard``, one board per region/league/platform with a global view;
- ``board_async``, ``sharded_async``, ``segmented_async``: the same boards over asyncio clients;
- ``bands``, ``bands_async``: :class:`RangePartitionedLeaderboard`, split by score into bands under one hash tag;
- ``teams``: :class:`TeamLeaderboard`, players and their teams ranked by their points (``teams_async``);
- ``descriptor``: what a board stores about itself (options, season, shard layout) and how it is read;
- ``parts``: what every board shape shares (argument checks, key parts, ranks);
- ``scorebits``: the score codec (points and tie-break in one double);
- ``periods``: daily/weekly/monthly periods and their keys;
- ``rolling``, ``rolling_async``: :class:`RollingLeaderboard`, the last N days in slices;
- ``snapshots``: a board's frozen labelled copies and rank changes since them;
- ``scripts/``: the Lua scripts every write runs (atomic on every backend);
- ``_entries``: the compiled entry builder (an extension of its own).

Nothing here imports the Engine or the compiled core: on the Engine the
scripts' native paths are ``fastrank.natives``'s, which the package
registers.
"""
from fastrank.leaderboard.board import Change, Entry, Leaderboard
from fastrank.leaderboard.sharded import ShardedLeaderboard
from fastrank.leaderboard.rolling import RollingLeaderboard
from fastrank.leaderboard.snapshots import RankChange, SnapshotInfo

__all__ = ["Change", "Entry", "Leaderboard", "ShardedLeaderboard", "RollingLeaderboard", "RankChange", "SnapshotInfo"]
