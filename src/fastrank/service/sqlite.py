"""SQLiteStore: the embedded record of truth, one file (the default).

WAL mode with ``synchronous=FULL``, so a committed event survives a crash of
the process or the machine; ``BEGIN IMMEDIATE`` serialises writers, which
keeps event ids in commit order; several processes may write to one file
(they wait up to ``busy_timeout`` for the lock).
"""
from __future__ import annotations

import os
import sqlite3
from typing import Any

from fastrank.service.store import SQLStore

__all__ = ["SQLiteStore"]


class SQLiteStore(SQLStore):
    """The event log and totals in one SQLite file (see ``fastrank.service.store``)."""

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout: float = 30.0) -> None:
        self.path = os.fspath(path)
        self.busy_timeout = busy_timeout
        super().__init__()

    def _connect(self) -> Any:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                               timeout=self.busy_timeout)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        return conn

    def _begin_write(self, cur: Any) -> None:
        cur.execute("BEGIN IMMEDIATE")

    def _columns_query(self, with_seconds: bool) -> str:
        # floor() of the clamped time without the optional math functions.
        seconds = ("group_concat(CAST(a AS INTEGER) - (a < CAST(a AS INTEGER)), ' ')" if with_seconds
                   else "NULL")
        return (f"SELECT group_concat(player, char(31)), group_concat(points, ' '), {seconds}, COUNT(*), "
                "MAX(last_id), MAX(player) FROM (SELECT player, points, MAX(MIN(at, 4e18), -4e18) AS a, "
                "last_id FROM totals WHERE season = ? AND player > ? ORDER BY player LIMIT ?)")

    def __repr__(self) -> str:
        return f"SQLiteStore({self.path!r})"
