"""SQLiteStore: the embedded record of truth, one file (the default).

WAL mode with ``synchronous=FULL``, so a committed event survives a crash of
the process or the machine; ``BEGIN IMMEDIATE`` serialises writers, which
keeps event ids in commit order; several processes may write to one file
(they wait up to ``busy_timeout`` for the lock).
"""
from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Optional

from fastrank.leaderboard.scorebits import ScoreCodec
from fastrank.service._totals import ScoreOrderScan
from fastrank.service.packed import PackedTotals, open_score_scan, read_packed
from fastrank.service.store import SQLStore

__all__ = ["SQLiteStore"]


class SQLiteStore(SQLStore):
    """The event log and totals in one SQLite file (see ``fastrank.service.store``)."""

    def __init__(self, path: str | os.PathLike[str], *, busy_timeout: float = 30.0,
                 migrate_board: str | None = None) -> None:
        """Open (or create) the SQLite file ``path``; ``busy_timeout`` is how
        long a writer waits for another's lock (seconds); ``migrate_board``:
        see ``SQLStore.__init__``.

        :raises StoreSchemaError: the file's tables are in a layout this
            version does not read (see ``SQLStore.__init__``).
        """
        self.path = os.fspath(path)
        self.busy_timeout = busy_timeout
        super().__init__(migrate_board=migrate_board)

    def _connect(self) -> Any:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                               timeout=self.busy_timeout)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        return conn

    @contextmanager
    def reading_copy(self) -> Iterator[SQLStore]:
        """See ``SQLStore.reading_copy``; an in-memory database has no second
        connection, so it reads on this one."""
        if self.path == ":memory:":
            yield self
            return
        with super().reading_copy() as copy:
            yield copy

    def _begin_write(self, cur: Any) -> None:
        cur.execute("BEGIN IMMEDIATE")

    def _tables(self, cur: Any) -> set[str]:
        cur.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        return {row[0] for row in cur.fetchall()}

    def score_order_scan(self, season: str, upto: int, codec: ScoreCodec, *,
                         board: str = "") -> Optional[ScoreOrderScan]:
        """See ``SQLStore.score_order_scan``: the file's ranking index stepped
        backwards by SQLite's C API (``fastrank.service.packed.open_score_scan``)."""
        return open_score_scan(self, season, upto, codec, board=board)

    def packed_totals(self, season: str, upto: int, parts: int, *, board: str = "") -> Optional[PackedTotals]:
        """See ``SQLStore.packed_totals``: SQLite's C API steps the file's
        totals table (``fastrank.service.packed.read_packed``)."""
        return read_packed(self, season, upto, parts, board=board)

    def _schema(self) -> list[str]:
        # totals is keyed by (season, player) and read in that order by a
        # rebuild: WITHOUT ROWID keeps each row in its key's b-tree, so the
        # reading walks one tree instead of an index plus a lookup per row.
        # (A file created before this keeps its rowid table; both work.)
        return [statement + " WITHOUT ROWID" if statement.startswith("CREATE TABLE IF NOT EXISTS totals ")
                else statement for statement in super()._schema()]

    def _columns_query(self, with_seconds: bool, bounded: bool) -> str:
        seconds = "group_concat(CAST(MIN(at, 4e18) AS INTEGER), ' ')" if with_seconds else "NULL"
        until = " AND player <= ?" if bounded else ""
        return (f"SELECT CAST(group_concat(player, char(31)) AS BLOB), group_concat(points, ' '), {seconds}, COUNT(*), "
                "MAX(last_id), MAX(player), MIN(at) FROM (SELECT player, points, at, last_id FROM totals "
                f"WHERE board = ? AND season = ? AND player > ?{until} ORDER BY player LIMIT ?)")

    def __repr__(self) -> str:
        return f"SQLiteStore({self.path!r})"
