"""Leaderboards over any redis-py client (the Engine, a Redis, a Redis Cluster).

- ``board``: :class:`Leaderboard`, :class:`Entry`, :class:`Change`;
- ``sharded``: :class:`ShardedLeaderboard`, hash-sharded with scatter-gather;
- ``board_async``, ``sharded_async``: the same boards over asyncio clients;
- ``parts``: what every board shape shares (argument checks, key parts, ranks);
- ``scorebits``: the score codec (points and tie-break in one double);
- ``periods``: daily/weekly/monthly periods and their keys;
- ``scripts/``: the Lua scripts every write runs (atomic on every backend);
- ``natives``: the Engine's native paths of those scripts, registered with
  :meth:`fastrank.Engine.register_native_script`;
- ``_entries`` (an extension of its own) and ``natives.pxi`` (compiled into
  ``fastrank._core`` for now): the compiled parts.
"""
from fastrank.leaderboard import natives  # noqa: F401  (registers the Engine's native paths)
from fastrank.leaderboard.board import Change, Entry, Leaderboard
from fastrank.leaderboard.sharded import ShardedLeaderboard

__all__ = ["Change", "Entry", "Leaderboard", "ShardedLeaderboard"]
