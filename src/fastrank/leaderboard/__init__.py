"""Leaderboards over any redis-py client (the Engine, a Redis, a Redis Cluster).

- ``board``: :class:`Leaderboard`, :class:`Entry`, :class:`Change`;
- ``sharded``: :class:`ShardedLeaderboard`, hash-sharded with scatter-gather;
- ``bands``: :class:`RangePartitionedLeaderboard`, split by score into bands under one hash tag;
- ``board_async``, ``sharded_async``, ``bands_async``: the same boards over asyncio clients;
- ``descriptor``: what a board stores about itself (options, season, shard layout) and how it is read;
- ``parts``: what every board shape shares (argument checks, key parts, ranks);
- ``scorebits``: the score codec (points and tie-break in one double);
- ``periods``: daily/weekly/monthly periods and their keys;
- ``scripts/``: the Lua scripts every write runs (atomic on every backend);
- ``_entries``: the compiled entry builder (an extension of its own).

Nothing here imports the Engine or the compiled core: on the Engine the
scripts' native paths are ``fastrank.natives``'s, which the package
registers.
"""
from fastrank.leaderboard.board import Change, Entry, Leaderboard
from fastrank.leaderboard.sharded import ShardedLeaderboard

__all__ = ["Change", "Entry", "Leaderboard", "ShardedLeaderboard"]
