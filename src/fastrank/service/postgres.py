"""PostgresStore: the record of truth in PostgreSQL, through psycopg 3.

Each write transaction first takes one transaction-scoped advisory lock, so
writers commit one at a time and event ids (an identity column) grow in
commit order: an applier tailing ``id > last`` can never miss an event that
commits late with a smaller id. Reads take no lock.
"""
from __future__ import annotations

from typing import Any

from fastrank.service.store import SQLStore

__all__ = ["PostgresStore"]

#: The advisory lock key of the writers (any constant the application does not use).
WRITER_LOCK = 0x66726B  # "frk"


class PostgresStore(SQLStore):
    """The event log and totals in PostgreSQL (see ``fastrank.service.store``).

    ``dsn`` is a libpq connection string or URL
    (``"host=127.0.0.1 port=5432 dbname=scores user=app"``).
    """

    placeholder = "%s"
    unlimited = None
    id_column = "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
    bool_type = "BOOLEAN"

    keep_ids = "OVERRIDING SYSTEM VALUE"

    def __init__(self, dsn: str, *, migrate_board: str | None = None) -> None:
        """Connect to ``dsn`` and create the tables when there are none;
        ``migrate_board``: see ``SQLStore.__init__``.

        :raises StoreSchemaError: the database's tables are in a layout this
            version does not read (see ``SQLStore.__init__``).
        :raises psycopg.OperationalError: the server cannot be reached.
        """
        self.dsn = dsn
        super().__init__(migrate_board=migrate_board)

    def _connect(self) -> Any:
        import psycopg  # an optional dependency: pip install 'fastrank[postgres]'

        return psycopg.connect(self.dsn, autocommit=True)

    def _begin_write(self, cur: Any) -> None:
        cur.execute("BEGIN")
        cur.execute("SELECT pg_advisory_xact_lock(%s)", (WRITER_LOCK,))

    def _tables(self, cur: Any) -> set[str]:
        cur.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")
        return {row[0] for row in cur.fetchall()}

    def _ids_copied(self, cur: Any) -> None:
        cur.execute("SELECT setval(pg_get_serial_sequence('events', 'id'), "
                    "COALESCE((SELECT MAX(id) FROM events), 0) + 1, false)")

    def _columns_query(self, with_seconds: bool, bounded: bool) -> str:
        seconds = "string_agg(floor(LEAST(at, 4e18))::bigint::text, ' ')" if with_seconds else "NULL"
        until = " AND player <= ?" if bounded else ""
        return (f"SELECT convert_to(string_agg(player, chr(31)), 'UTF8'), string_agg(points::text, ' '), "
                f"{seconds}, COUNT(*), "
                "MAX(last_id), MAX(player), MIN(at) FROM (SELECT player, points, at, last_id FROM totals "
                f"WHERE board = ? AND season = ? AND player > ?{until} ORDER BY player LIMIT ?) AS page")

    def __repr__(self) -> str:
        return "PostgresStore(...)"
