"""The record of truth for scores: an append-only log of events in SQL.

Two tables, written together in one transaction, every row keyed by board
and season (each method takes ``board=``; the score service passes its
board's name), so boards sharing a store share no events, totals, match ids
or standings:

- ``events``: the log. A *score* event is one player's points from one match
  (``board``, ``match_id`` and ``player`` unique together, which makes a retried submit
  find its first event instead of adding a second). Each keeps the caller's
  ``at``, the store's ``recorded_at`` and, once the applier gave up on it,
  why (``rejected``). A *correction* event,
  written when events are tombstoned, carries the player's recomputed total.
  Event ids grow in commit order (writers take one lock per transaction), so
  an applier that remembers the last id it applied can tail the log with
  ``events_after`` and never skip a late commit.
- ``totals``: per season and player, the sum of the surviving score events,
  the time of the latest one (the time the player reached that total, which
  a tie-breaking board needs) and the id of the last event that changed the
  row. ``top`` is an indexed query on it; ``totals_upto`` pages through it as
  of one event id, which is what a board rebuild loads.

``reviews`` is the review queue (``review_queue.py``): held and flagged
score events, their reasons and the decisions taken on them; a *held*
event (kind ``"held"``) counts for nothing until approved.

``bans`` lists the players a board has banned (``ScoreService.ban``: their
submits are refused, their events kept); ``audit`` records erasures
(``erase_player``) with counts, who and when, and no player id.

``standings`` holds archived seasons; ``fastrank_schema`` the layout's
version (``SCHEMA_VERSION``; ``SQLStore.__init__`` migrates the layout
before boards when told which board its rows belong to).

``SQLStore`` holds the logic once; ``SQLiteStore`` and ``PostgresStore``
supply the connection, the placeholder style, the DDL and the writer lock.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import numpy.typing as npt

from fastrank.errors import PlayerBanned
from fastrank.service.review_queue import ReviewQueue

if TYPE_CHECKING:
    from fastrank.leaderboard.scorebits import ScoreCodec
    from fastrank.service._totals import ScoreOrderScan
    from fastrank.service.packed import PackedTotals

__all__ = ["AuditRecord", "CeilingExceeded", "ConflictingResubmit", "Event", "SCHEMA_VERSION", "SQLStore", "Standing",
           "StoreSchemaError", "Total", "TotalsColumns", "TotalsPage"]

DAY_SECONDS = 86_400

#: The layout this code writes and reads (``fastrank_schema.version``). 1: the
#: layout before boards (no such table: events, totals and standings keyed by
#: season alone); 2: every row keyed by board and season, each event with the
#: time the store recorded it and, when the applier could not apply it, why.
SCHEMA_VERSION = 2


class Event(NamedTuple):
    """One row of the log. ``kind`` is ``"score"`` or ``"correction"``; a
    correction's ``points`` is the player's new total and its ``match_id`` None.
    ``at`` is the time the caller gave, ``recorded_at`` the store's clock when
    it was recorded (what the day ceiling counts on); ``rejected`` is None, or
    why the applier could not apply it to the board (the event then counts
    for nothing)."""

    id: int
    kind: str
    season: str
    match_id: str | None
    player: str
    points: int
    at: float
    tombstoned: bool
    board: str = ""
    recorded_at: float = 0.0
    rejected: str | None = None


class Total(NamedTuple):
    """A player's surviving total in a season and when they reached it."""

    player: str
    points: int
    at: float


class TotalsPage(NamedTuple):
    """Totals as columns (what a rebuild loads), and the cursor of the next page."""

    players: list[str]
    points: list[int]
    ats: list[float]
    next_after: str | None


class TotalsColumns(NamedTuple):
    """A page of totals as a rebuild loads it: player ids (UTF-8 bytes, what
    a sorted set stores), points (int64) and the whole second each total was
    reached (``floor(at)``, int64; None when not asked for), and the cursor
    of the next page."""

    players: list[bytes]
    points: npt.NDArray[np.int64]
    seconds: npt.NDArray[np.int64] | None
    next_after: str | None


#: The condition that leaves a board's banned players out of a read of totals (one parameter: the board).
NOT_BANNED = " AND player NOT IN (SELECT player FROM bans WHERE board = ?)"

#: Joins the player ids of a page in one text (a page whose ids contain it is read row by row).
PLAYER_SEPARATOR = b"\x1f"


class Standing(NamedTuple):
    """One row of an archived season."""

    rank: int
    player: str
    points: int


class AuditRecord(NamedTuple):
    """One row of the ``audit`` table: what was done to how many rows, by whom
    and when (seconds since the epoch). It names no player."""

    id: int
    board: str
    action: str
    events: int
    totals: int
    standings: int
    reviews: int
    by: str
    at: float


class ConflictingResubmit(ValueError):
    """A (match id, player) already recorded with other points or another season."""


class CeilingExceeded(ValueError):
    """A player would pass the points allowed per day; nothing was recorded."""


class StoreSchemaError(RuntimeError):
    """The store's tables are not in the layout this version reads: written by
    a newer fastrank, of an unknown shape, or of the layout before boards
    holding events (open it once with ``migrate_board=``); nothing was changed."""


_EVENT_COLUMNS = "id, kind, season, match_id, player, points, at, tombstoned, board, recorded_at, rejected"


def _event(row: tuple[Any, ...]) -> Event:
    return Event(int(row[0]), row[1], row[2], row[3], row[4], int(row[5]), float(row[6]),
                 bool(row[7]), row[8], float(row[9]), row[10])


class SQLStore(ReviewQueue):
    """The store's logic over a DB-API connection; see the module docstring.

    Subclasses set ``placeholder``, ``unlimited``, ``id_column``,
    ``bool_type`` and ``keep_ids`` and implement ``_connect``, ``_begin_write``
    and ``_tables``.

    Every row is keyed by board and season: each method that reads or writes
    rows takes ``board`` (keyword, default ``""``), so services of boards
    "arena" and "race" on one store share no events, totals, standings or
    match ids. ``migrate_board``: see :meth:`__init__`.
    """

    placeholder = "?"
    #: The events' id column: grows with every insert, never reused.
    id_column = "INTEGER PRIMARY KEY AUTOINCREMENT"
    bool_type = "INTEGER"
    #: The LIMIT argument that means no limit.
    unlimited: Any = -1
    #: What an INSERT that gives the events' ids itself (a migration) says after the column list.
    keep_ids = ""

    def __init__(self, *, migrate_board: str | None = None) -> None:
        """Open the store, creating its tables when there are none.

        A store of the layout before boards (schema 1: no ``fastrank_schema``
        table) that holds rows is migrated only when ``migrate_board`` names
        the board its rows belong to (all of them are filed under it, event
        ids kept, in one transaction); without it ``StoreSchemaError`` says
        so. An empty one is migrated by itself. ``migrate_board`` is ignored
        by a store already in the current layout.

        :raises StoreSchemaError: a newer or unknown layout, or an old one
            with rows and no ``migrate_board``; nothing is changed.
        """
        if migrate_board is not None and type(migrate_board) is not str:
            raise TypeError(f"migrate_board must be a board name (str) or None, not {migrate_board!r}")
        self._lock = threading.RLock()  # one connection, shared by the caller's threads
        self._conn: Any = self._connect()
        try:
            with self._write() as cur:
                self._open_schema(cur, migrate_board)
        except BaseException:
            self._conn.close()
            raise

    def _open_schema(self, cur: Any, migrate_board: str | None) -> None:
        tables = self._tables(cur)
        if "fastrank_schema" in tables:
            cur.execute("SELECT MAX(version) FROM fastrank_schema")
            version = cur.fetchone()[0]
            if version != SCHEMA_VERSION:
                raise StoreSchemaError(
                    f"{self!r} has schema version {version}; this fastrank reads version {SCHEMA_VERSION}"
                    + (": upgrade fastrank" if isinstance(version, int) and version > SCHEMA_VERSION else ""))
            for statement in self._added_tables():  # tables added within this version: created when missing
                cur.execute(statement)
            return
        if not tables & {"events", "totals", "standings"}:
            self._create(cur)
            return
        if "events" in tables:
            cur.execute("SELECT * FROM events LIMIT 0")
            columns = {d[0] for d in cur.description}
            if columns != {"id", "kind", "season", "match_id", "player", "points", "at", "day", "tombstoned"}:
                raise StoreSchemaError(f"{self!r}: its events table has unknown columns {sorted(columns)}")
        rows = 0
        for table in ("events", "totals", "standings"):
            if table in tables:
                cur.execute(f"SELECT COUNT(*) FROM {table}")
                rows += int(cur.fetchone()[0])
        if rows and migrate_board is None:
            raise StoreSchemaError(
                f"{self!r} is in the layout before boards (schema 1) and holds {rows} rows: open it once "
                "with migrate_board='<board name>' (fastrank apply/rebuild --migrate-store NAME) to file "
                "them under that board")
        self._migrate(cur, tables, migrate_board or "")

    def _migrate(self, cur: Any, tables: set[str], board: str) -> None:
        """Schema 1 to 2: rename the old tables, create the new ones, copy every
        row under ``board`` (an event's ``recorded_at`` is its ``at``), drop the
        old ones. Event ids are kept, so a board's applied offset stays right."""
        old = [t for t in ("events", "totals", "standings") if t in tables]
        for index in ("events_by_player_day", "events_by_season_player", "totals_by_rank"):
            cur.execute(f"DROP INDEX IF EXISTS {index}")
        for table in old:
            cur.execute(f"ALTER TABLE {table} RENAME TO {table}_v1")
        self._create(cur)
        if "events" in old:
            cur.execute(self._sql(
                "INSERT INTO events (id, board, kind, season, match_id, player, points, at, recorded_at, day, "
                f"tombstoned, rejected) {self.keep_ids} SELECT id, ?, kind, season, match_id, player, points, "
                "at, at, day, tombstoned, NULL FROM events_v1 ORDER BY id"), (board,))
            self._ids_copied(cur)
        if "totals" in old:
            cur.execute(self._sql("INSERT INTO totals (board, season, player, points, at, last_id) "
                                  "SELECT ?, season, player, points, at, last_id FROM totals_v1"), (board,))
        if "standings" in old:
            cur.execute(self._sql("INSERT INTO standings (board, season, position, rank, player, points) "
                                  "SELECT ?, season, position, rank, player, points FROM standings_v1"), (board,))
        for table in old:
            cur.execute(f"DROP TABLE {table}_v1")

    def _create(self, cur: Any) -> None:
        for statement in self._schema():
            cur.execute(statement)
        cur.execute(self._sql("INSERT INTO fastrank_schema (version) VALUES (?)"), (SCHEMA_VERSION,))

    def schema_version(self) -> int:
        """The layout version of the store's tables (``SCHEMA_VERSION`` once opened)."""
        return int(self._read("SELECT MAX(version) FROM fastrank_schema")[0][0])

    # -- what a dialect provides --------------------------------------------------

    def _connect(self) -> Any:
        raise TypeError("SQLStore is abstract: use SQLiteStore or PostgresStore")

    def _tables(self, cur: Any) -> set[str]:
        """The names of the tables in the store's database (schema)."""
        raise TypeError("SQLStore is abstract: use SQLiteStore or PostgresStore")

    def _ids_copied(self, cur: Any) -> None:
        """After a migration copied the events with their ids: make new ids start above them."""

    def _schema(self) -> list[str]:
        # ``day`` is the UTC day of ``recorded_at`` (the day ceiling's).
        return [
            f"CREATE TABLE IF NOT EXISTS events (id {self.id_column}, board TEXT NOT NULL, kind TEXT NOT NULL, "
            "season TEXT NOT NULL, match_id TEXT, player TEXT NOT NULL, points BIGINT NOT NULL, "
            "at DOUBLE PRECISION NOT NULL, recorded_at DOUBLE PRECISION NOT NULL, day BIGINT NOT NULL, "
            f"tombstoned {self.bool_type} NOT NULL, rejected TEXT, UNIQUE (board, match_id, player))",
            "CREATE INDEX IF NOT EXISTS events_by_player_day ON events (board, player, day)",
            "CREATE INDEX IF NOT EXISTS events_by_season_player ON events (board, season, player)",
            "CREATE INDEX IF NOT EXISTS events_by_board ON events (board, id)",
            "CREATE TABLE IF NOT EXISTS totals (board TEXT NOT NULL, season TEXT NOT NULL, player TEXT NOT NULL, "
            "points BIGINT NOT NULL, at DOUBLE PRECISION NOT NULL, last_id BIGINT NOT NULL, "
            "PRIMARY KEY (board, season, player))",
            "CREATE INDEX IF NOT EXISTS totals_by_rank ON totals (board, season, points DESC, at, player)",
            "CREATE TABLE IF NOT EXISTS standings (board TEXT NOT NULL, season TEXT NOT NULL, "
            "position BIGINT NOT NULL, rank BIGINT NOT NULL, player TEXT NOT NULL, points BIGINT NOT NULL, "
            "PRIMARY KEY (board, season, position))",
            "CREATE TABLE IF NOT EXISTS fastrank_schema (version BIGINT NOT NULL)",
            # the review queue (review_queue.py): one row per held or flagged event
            "CREATE TABLE IF NOT EXISTS reviews (event_id BIGINT PRIMARY KEY, board TEXT NOT NULL, "
            "status TEXT NOT NULL, reasons TEXT NOT NULL, decided_by TEXT, decided_at DOUBLE PRECISION)",
            "CREATE INDEX IF NOT EXISTS reviews_by_status ON reviews (board, status, event_id)",
            *self._added_tables(),
        ]

    def _added_tables(self) -> list[str]:
        """Tables added to this layout version after stores of it were made
        (each ``IF NOT EXISTS``, so opening an older store creates them)."""
        return [
            # the players a board has banned
            "CREATE TABLE IF NOT EXISTS bans (board TEXT NOT NULL, player TEXT NOT NULL, banned_by TEXT NOT NULL, "
            "banned_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (board, player))",
            # what was erased: counts, who and when; never a player id
            f"CREATE TABLE IF NOT EXISTS audit (id {self.id_column}, board TEXT NOT NULL, action TEXT NOT NULL, "
            "events BIGINT NOT NULL, totals BIGINT NOT NULL, standings BIGINT NOT NULL, reviews BIGINT NOT NULL, "
            "done_by TEXT NOT NULL, done_at DOUBLE PRECISION NOT NULL)",
        ]

    def _begin_write(self, cur: Any) -> None:
        """Open a write transaction that serialises writers (ids in commit order)."""
        raise TypeError("SQLStore is abstract: use SQLiteStore or PostgresStore")

    def _columns_query(self, with_seconds: bool, bounded: bool) -> str:
        """One page of totals aggregated into one row: the player ids joined by
        ``PLAYER_SEPARATOR`` as UTF-8 bytes (a BLOB), the points and (``with_seconds``) the times as
        whole seconds (any rounding for a time below 0: such a page is read
        again row by row; clamped to 4e18 above) as space-separated integers,
        then COUNT, MAX(last_id), MAX(player) and MIN(at). Parameters:
        board, season, after, the last player when ``bounded``, batch."""
        raise TypeError("SQLStore is abstract: use SQLiteStore or PostgresStore")

    # -- plumbing ---------------------------------------------------------------------

    def _sql(self, text: str) -> str:
        return text if self.placeholder == "?" else text.replace("?", self.placeholder)

    @contextmanager
    def _write(self) -> Iterator[Any]:
        with self._lock:
            cur = self._conn.cursor()
            self._begin_write(cur)
            try:
                yield cur
            except BaseException:
                cur.execute("ROLLBACK")
                raise
            else:
                cur.execute("COMMIT")
            finally:
                cur.close()

    def _read(self, text: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            cur = self._conn.cursor()
            try:
                cur.execute(self._sql(text), params)
                rows: list[tuple[Any, ...]] = cur.fetchall()
            finally:
                cur.close()
            return rows

    def close(self) -> None:
        """Close the store's connection; the store is unusable afterwards."""
        with self._lock:
            self._conn.close()

    # -- writes -------------------------------------------------------------------------

    def record(self, season: str, match_id: str, points: Mapping[str, int], at: float, *,
               max_per_day: int | None = None, max_total: int | None = None, board: str = "",
               recorded_at: float | None = None) -> tuple[list[Event], bool]:
        """Record one match's points for each player of ``board``, all or nothing.

        Returns (the events, duplicate): a match already recorded on this
        board with the same points returns its first events and True, adding
        nothing. The same match id on another board is another match.
        ``recorded_at`` is the time the store files the events at (default:
        this machine's clock now).

        :raises ConflictingResubmit: a (match id, player) of this board exists
            with other points or another season (nothing recorded).
        :raises CeilingExceeded: a player would pass ``max_per_day`` points on
            this board on the UTC day of ``recorded_at`` (the caller's ``at``
            does not move it), or a total of magnitude ``max_total`` (the most
            the board holds); nothing is recorded.
        """
        return self.record_matches(season, [(match_id, points, at)], max_per_day=max_per_day,
                                   max_total=max_total, board=board, recorded_at=recorded_at)[0]

    def record_matches(self, season: str, matches: Sequence[tuple[str, Mapping[str, int], float]], *,
                       max_per_day: int | None = None, max_total: int | None = None, board: str = "",
                       recorded_at: float | None = None,
                       reviews: Mapping[tuple[str, str], tuple[str, Sequence[str]]] | None = None,
                       ) -> list[tuple[list[Event], bool]]:
        """Record many matches ((match id, {player: points}, at) each) of
        ``board`` in one transaction, each as :meth:`record` does; any
        refusal records none.

        ``reviews`` maps (match id, player) to (``"held"`` or ``"flagged"``,
        reasons) for the review queue: a held score is recorded as kind
        ``"held"`` (it counts for nothing and no applier applies it until
        :meth:`approve`), a flagged one as a score; each gets a row in the
        queue (:meth:`flags`). A retry of an event already recorded keeps
        its first state."""
        now = time.time() if recorded_at is None else float(recorded_at)
        with self._write() as cur:
            return [self._record_match(cur, board, season, match_id, points, at, now, max_per_day, max_total,
                                       reviews or {})
                    for match_id, points, at in matches]

    def _record_match(self, cur: Any, board: str, season: str, match_id: str, points: Mapping[str, int],
                      at: float, now: float, max_per_day: int | None, max_total: int | None,
                      reviews: Mapping[tuple[str, str], tuple[str, Sequence[str]]]) -> tuple[list[Event], bool]:
        day = int(now // DAY_SECONDS)
        out: list[Event] = []
        fresh = 0
        for player, pts in points.items():
            cur.execute(self._sql("SELECT 1 FROM bans WHERE board = ? AND player = ?"), (board, player))
            if cur.fetchone() is not None:
                raise PlayerBanned(f"player {player!r} is banned from board {board!r}: nothing of match "
                                   f"{match_id!r} was recorded")
            cur.execute(self._sql(f"SELECT {_EVENT_COLUMNS} FROM events "
                                  "WHERE board = ? AND match_id = ? AND player = ?"), (board, match_id, player))
            row = cur.fetchone()
            if row is not None:
                old = _event(row)
                if old.points != pts or old.season != season:
                    raise ConflictingResubmit(
                        f"match {match_id!r} already recorded {old.points} points for "
                        f"{player!r} in season {old.season!r}; refusing {pts} in {season!r}")
                out.append(old)
                continue
            if max_per_day is not None:
                cur.execute(self._sql("SELECT COALESCE(SUM(points), 0) FROM events WHERE board = ? AND "
                                      "player = ? AND day = ? AND kind = 'score' "
                                      "AND NOT tombstoned"), (board, player, day))
                today = int(cur.fetchone()[0])
                if today + pts > max_per_day:
                    raise CeilingExceeded(
                        f"{player!r} would have {today + pts} points on day {day} "
                        f"(at most {max_per_day} a day)")
            review = reviews.get((match_id, player))
            kind = "held" if review is not None and review[0] == "held" else "score"
            cur.execute(self._sql("INSERT INTO events (board, kind, season, match_id, player, points, "
                                  "at, recorded_at, day, tombstoned) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, "
                                  "FALSE) RETURNING " + _EVENT_COLUMNS),
                        (board, kind, season, match_id, player, pts, at, now, day))
            event = _event(cur.fetchone())
            out.append(event)
            if kind == "score":
                self._upsert_total(cur, board, season, player, pts, at, event.id, max_total)
            if review is not None:
                self._queue(cur, board, event.id, review[0], review[1])
            fresh += 1
        if fresh and fresh != len(out):
            # Part of the match was there already: a resubmit that names
            # other players than the first one is a conflict too.
            raise ConflictingResubmit(f"match {match_id!r} was recorded with other players")
        return out, fresh == 0

    def _upsert_total(self, cur: Any, board: str, season: str, player: str, points: int, at: float,
                      event_id: int, max_total: int | None) -> None:
        cur.execute(self._sql("INSERT INTO totals (board, season, player, points, at, last_id) "
                              "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (board, season, player) DO UPDATE SET "
                              "points = totals.points + excluded.points, "
                              "at = CASE WHEN excluded.at > totals.at THEN excluded.at "
                              "ELSE totals.at END, last_id = excluded.last_id RETURNING points"),
                    (board, season, player, points, at, event_id))
        total = int(cur.fetchone()[0])
        if max_total is not None and not -max_total <= total <= max_total:
            raise CeilingExceeded(f"{player!r} would have {total} points, more than the board holds "
                                  f"(magnitude at most {max_total})")

    def tombstone_player(self, season: str, player: str, *, board: str = "") -> Event | None:
        """Tombstone a player's score events in a season of ``board``; the
        correction event with their total from what survives (None if nothing
        was live)."""
        with self._write() as cur:
            cur.execute(self._sql("UPDATE events SET tombstoned = TRUE WHERE board = ? AND season = ? AND "
                                  "player = ? AND kind = 'score' AND NOT tombstoned"),
                        (board, season, player))
            if cur.rowcount == 0:
                return None
            return self._correct(cur, board, season, player)

    def tombstone_match(self, match_id: str, *, board: str = "") -> list[Event]:
        """Tombstone a match's events on ``board``; one correction event per player it touched."""
        with self._write() as cur:
            cur.execute(self._sql("UPDATE events SET tombstoned = TRUE WHERE board = ? AND match_id = ? AND "
                                  "NOT tombstoned RETURNING season, player"), (board, match_id))
            touched = sorted(set(cur.fetchall()))
            return [self._correct(cur, board, season, player) for season, player in touched]

    def _recount(self, cur: Any, board: str, season: str, player: str) -> tuple[int, float]:
        """A player's total from their surviving score events and when they
        reached it (their latest one; 0 when none survives)."""
        cur.execute(self._sql("SELECT COALESCE(SUM(points), 0), COALESCE(MAX(at), 0) FROM events "
                              "WHERE board = ? AND season = ? AND player = ? AND kind = 'score' "
                              "AND NOT tombstoned"), (board, season, player))
        total, reached = cur.fetchone()
        return int(total), float(reached)

    def _correct(self, cur: Any, board: str, season: str, player: str) -> Event:
        """Recompute a player's total from surviving events; log it as a correction
        whose ``at`` is when the player reached that total (their latest surviving
        event; 0 when none survives)."""
        total, reached = self._recount(cur, board, season, player)
        now = time.time()
        cur.execute(self._sql("INSERT INTO events (board, kind, season, match_id, player, points, at, "
                              "recorded_at, day, tombstoned) VALUES (?, 'correction', ?, NULL, ?, ?, ?, ?, ?, "
                              "FALSE) RETURNING " + _EVENT_COLUMNS),
                    (board, season, player, total, reached, now, int(now // DAY_SECONDS)))
        event = _event(cur.fetchone())
        cur.execute(self._sql("UPDATE totals SET points = ?, at = ?, last_id = ? "
                              "WHERE board = ? AND season = ? AND player = ?"),
                    (total, reached, event.id, board, season, player))
        return event

    def reject(self, event_ids: Sequence[int], reason: str, *, board: str = "") -> list[Event]:
        """Mark events of ``board`` as ones the applier could not apply, with
        ``reason``, in one transaction: each stays in the log (listed by
        :meth:`rejected`) and counts for nothing (a score event is tombstoned
        and the player's total recomputed without it, the row dropped when
        nothing of theirs is left; no correction is logged, since the board
        never had it). The events as marked (ids ``board`` has no event of are
        left out). Idempotent: an event rejected before keeps its first reason."""
        out: list[Event] = []
        with self._write() as cur:
            for event_id in event_ids:
                cur.execute(self._sql(f"SELECT {_EVENT_COLUMNS} FROM events WHERE board = ? AND id = ?"),
                            (board, event_id))
                row = cur.fetchone()
                if row is None:
                    continue
                event = _event(row)
                if event.rejected is None:
                    self._reject(cur, board, event, reason)
                    event = event._replace(rejected=reason, tombstoned=event.tombstoned or event.kind == "score")
                out.append(event)
        return out

    def _reject(self, cur: Any, board: str, event: Event, reason: str) -> None:
        cur.execute(self._sql("UPDATE events SET rejected = ?, tombstoned = (tombstoned OR kind = 'score') "
                              "WHERE id = ?"), (reason, event.id))
        if event.kind != "score" or event.tombstoned:
            return
        cur.execute(self._sql("SELECT COUNT(*) FROM events WHERE board = ? AND season = ? AND player = ? "
                              "AND NOT tombstoned"), (board, event.season, event.player))
        if not int(cur.fetchone()[0]):  # nothing of theirs ever reached the board: no row
            cur.execute(self._sql("DELETE FROM totals WHERE board = ? AND season = ? AND player = ?"),
                        (board, event.season, event.player))
            return
        total, reached = self._recount(cur, board, event.season, event.player)
        cur.execute(self._sql("UPDATE totals SET points = ?, at = ?, last_id = CASE WHEN last_id > ? "
                              "THEN last_id ELSE ? END WHERE board = ? AND season = ? AND player = ?"),
                    (total, reached, event.id, event.id, board, event.season, event.player))

    def erase_player(self, player: str, *, board: str = "", by: str = "",
                     at: float | None = None) -> tuple[list[str], AuditRecord]:
        """Forget a player of ``board`` in one transaction: their events of every
        season (deleted; ids are never reused, so appliers' offsets stay
        valid), their totals, archived standings, review-queue rows and ban.
        Adds an ``audit`` row (``"player.erased"``, the counts, ``by``, when:
        no player id). The seasons the player was in (sorted) and the audit record."""
        now = time.time() if at is None else float(at)
        with self._write() as cur:
            cur.execute(self._sql("SELECT season FROM events WHERE board = ? AND player = ? UNION "
                                  "SELECT season FROM totals WHERE board = ? AND player = ? UNION "
                                  "SELECT season FROM standings WHERE board = ? AND player = ?"),
                        (board, player) * 3)
            seasons = sorted({row[0] for row in cur.fetchall()})
            cur.execute(self._sql("DELETE FROM reviews WHERE board = ? AND event_id IN "
                                  "(SELECT id FROM events WHERE board = ? AND player = ?)"), (board, board, player))
            reviews = cur.rowcount
            counts = []
            for table in ("events", "totals", "standings"):
                cur.execute(self._sql(f"DELETE FROM {table} WHERE board = ? AND player = ?"), (board, player))
                counts.append(cur.rowcount)
            cur.execute(self._sql("DELETE FROM bans WHERE board = ? AND player = ?"), (board, player))
            record = AuditRecord(0, board, "player.erased", counts[0], counts[1], counts[2], reviews, by, now)
            cur.execute(self._sql("INSERT INTO audit (board, action, events, totals, standings, reviews, done_by, "
                                  "done_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id"), record[1:])
            return seasons, record._replace(id=int(cur.fetchone()[0]))

    def audit(self, *, board: str = "") -> list[AuditRecord]:
        """The audit records of ``board`` (erasures), oldest first."""
        rows = self._read("SELECT id, board, action, events, totals, standings, reviews, done_by, done_at FROM audit "
                          "WHERE board = ? ORDER BY id", (board,))
        return [AuditRecord(int(r[0]), r[1], r[2], int(r[3]), int(r[4]), int(r[5]), int(r[6]), r[7], float(r[8]))
                for r in rows]

    def ban(self, player: str, *, board: str = "", by: str = "", at: float | None = None) -> bool:
        """Ban a player from ``board``: their submits are refused (``PlayerBanned``)
        from this commit on; their events stay. True if they were not banned."""
        now = time.time() if at is None else float(at)
        with self._write() as cur:
            cur.execute(self._sql("INSERT INTO bans (board, player, banned_by, banned_at) VALUES (?, ?, ?, ?) "
                                  "ON CONFLICT (board, player) DO NOTHING"), (board, player, by, now))
            return bool(cur.rowcount)

    def unban(self, season: str, player: str, *, board: str = "") -> tuple[bool, Event | None]:
        """Lift a player's ban from ``board`` and, when they have a total in
        ``season``, log it again as a correction (which an applier writes to
        the board). (whether they were banned, the correction or None)."""
        with self._write() as cur:
            cur.execute(self._sql("DELETE FROM bans WHERE board = ? AND player = ?"), (board, player))
            if not cur.rowcount:
                return False, None
            cur.execute(self._sql("SELECT 1 FROM totals WHERE board = ? AND season = ? AND player = ?"),
                        (board, season, player))
            if cur.fetchone() is None:
                return True, None
            return True, self._correct(cur, board, season, player)

    def bans(self, *, board: str = "") -> list[str]:
        """The players ``board`` has banned, in id order."""
        return [r[0] for r in self._read("SELECT player FROM bans WHERE board = ? ORDER BY player", (board,))]

    def archive(self, season: str, standings: list[Standing], *, board: str = "") -> int:
        """Write a season's final standings of ``board`` (replacing an earlier archive of it); how many rows."""
        with self._write() as cur:
            cur.execute(self._sql("DELETE FROM standings WHERE board = ? AND season = ?"), (board, season))
            for position, s in enumerate(standings):
                cur.execute(self._sql("INSERT INTO standings (board, season, position, rank, player, points) "
                                      "VALUES (?, ?, ?, ?, ?, ?)"),
                            (board, season, position, s.rank, s.player, s.points))
        return len(standings)

    # -- reads ----------------------------------------------------------------------------

    def events_after(self, after_id: int, limit: int = 10_000, *, board: str = "") -> list[Event]:
        """The log of ``board`` after an event id, in id order (what an applier tails)."""
        rows = self._read(f"SELECT {_EVENT_COLUMNS} FROM events WHERE board = ? AND id > ? ORDER BY id LIMIT ?",
                          (board, after_id, limit))
        return [_event(r) for r in rows]

    def count_after(self, after_id: int, *, board: str = "") -> int:
        """How many events of ``board`` the log holds after an event id (an applier's lag)."""
        return int(self._read("SELECT COUNT(*) FROM events WHERE board = ? AND id > ?", (board, after_id))[0][0])

    def rejected(self, season: str | None = None, *, board: str = "") -> list[Event]:
        """The events of ``board`` (in ``season``, or any) the applier could not
        apply, with their reasons (``Event.rejected``), oldest first."""
        if season is None:
            rows = self._read(f"SELECT {_EVENT_COLUMNS} FROM events WHERE board = ? AND rejected IS NOT NULL "
                              "ORDER BY id", (board,))
        else:
            rows = self._read(f"SELECT {_EVENT_COLUMNS} FROM events WHERE board = ? AND season = ? AND "
                              "rejected IS NOT NULL ORDER BY id", (board, season))
        return [_event(r) for r in rows]

    def last_event_id(self, *, board: str | None = None) -> int:
        """The id of the newest event in the log, or of ``board``'s newest (0 when there is none)."""
        if board is None:
            return int(self._read("SELECT COALESCE(MAX(id), 0) FROM events")[0][0])
        return int(self._read("SELECT COALESCE(MAX(id), 0) FROM events WHERE board = ?", (board,))[0][0])

    def has_events(self, *, board: str = "", season: str | None = None) -> bool:
        """Whether ``board`` has any event (in ``season`` when given). One indexed query."""
        if season is None:
            rows = self._read("SELECT 1 FROM events WHERE board = ? LIMIT 1", (board,))
        else:
            rows = self._read("SELECT 1 FROM events WHERE board = ? AND season = ? LIMIT 1", (board, season))
        return bool(rows)

    def total(self, season: str, player: str, *, board: str = "") -> Total | None:
        """A player's total in a season of ``board``, or None when they have none. One indexed query."""
        rows = self._read("SELECT player, points, at FROM totals WHERE board = ? AND season = ? AND player = ?",
                          (board, season, player))
        return Total(rows[0][0], int(rows[0][1]), float(rows[0][2])) if rows else None

    def totals(self, season: str, batch: int = 50_000, *, board: str = "") -> Iterator[list[Total]]:
        """Every player's total in a season of ``board``, in batches (keyset pagination by player)."""
        after = ""
        while True:
            rows = self._read("SELECT player, points, at FROM totals WHERE board = ? AND season = ? AND player > ? "
                              "ORDER BY player LIMIT ?", (board, season, after, batch))
            if not rows:
                return
            yield [Total(p, int(pts), float(at)) for p, pts, at in rows]
            after = rows[-1][0]

    def totals_upto(self, season: str, upto: int, after: str = "",
                    batch: int = 50_000, *, until: str | None = None, board: str = "") -> TotalsPage:
        """One page of the totals as of event ``upto``, as columns.

        The page holds up to ``batch`` players after ``after`` (and up to
        ``until`` when given) in player order; its ``next_after`` is the
        ``after`` of the next page, None at the end. A row no event after ``upto`` has changed is read as is; the
        few rows changed since are summed again from their events up to
        ``upto`` (players with no event by then are left out). Every page is
        exact for ``upto`` whatever was committed in between, so a board
        loaded page by page and then given the events after ``upto`` is exact.
        """
        up_to = "" if until is None else " AND player <= ?"
        params = (board, season, after, batch) if until is None else (board, season, after, until, batch)
        rows = self._read("SELECT player, points, at, last_id FROM totals WHERE board = ? AND season = ? AND "
                          f"player > ?{up_to} ORDER BY player LIMIT ?", params)
        next_after = rows[-1][0] if len(rows) == batch else None
        if not rows:
            return TotalsPage([], [], [], None)
        players, points, ats, last_ids = (list(column) for column in zip(*rows))
        if max(last_ids) <= upto:
            return TotalsPage(players, points, ats, next_after)
        page = TotalsPage([], [], [], next_after)
        for player, pts, at, last_id in rows:
            if last_id > upto:
                then = self.total_upto(season, player, upto, board=board)
                if then is None:
                    continue
                pts, at = then.points, then.at
            page.players.append(player)
            page.points.append(int(pts))
            page.ats.append(float(at))
        return page

    def total_upto(self, season: str, player: str, upto: int, *, board: str = "") -> Total | None:
        """A player's total on ``board`` as of event ``upto``, summed from the surviving score
        events up to it (None when they had none by then). One indexed query."""
        (count, pts, at), = self._read(
            "SELECT COUNT(*), COALESCE(SUM(points), 0), COALESCE(MAX(at), 0) FROM events WHERE board = ? AND "
            "season = ? AND player = ? AND kind = 'score' AND NOT tombstoned AND id <= ?",
            (board, season, player, upto))
        return Total(player, int(pts), float(at)) if int(count) else None

    def score_order_scan(self, season: str, upto: int, codec: ScoreCodec, *,
                         board: str = "") -> ScoreOrderScan | None:
        """A compiled scan of a season's totals as of event ``upto`` in the
        ascending order of a board encoded by ``codec``, chunk by chunk
        (``fastrank.service._totals.ScoreOrderScan``), or None when this store or that
        order has none (the caller reads the totals whole and sorts them)."""
        return None

    def packed_totals(self, season: str, upto: int, parts: int, *, board: str = "") -> PackedTotals | None:
        """Every total of a season as of event ``upto`` as packed columns
        (``fastrank.service.packed``), read by a compiled reader in ``parts``
        ranges side by side; None when this store has no such reader (the
        caller pages through ``totals_columns_upto`` instead)."""
        return None

    def totals_columns_upto(self, season: str, upto: int, after: str = "", batch: int = 50_000, *,
                            until: str | None = None, with_seconds: bool = True,
                            board: str = "") -> TotalsColumns:
        """:meth:`totals_upto` as numeric columns, read in one aggregated row.

        The same page and the same exactness as of event ``upto``, of the
        players after ``after`` and up to ``until`` (None: no bound); the
        player ids come as UTF-8 bytes, the times as whole seconds (``floor(at)``, clamped to +-4e18). The
        database joins each column into one text (a few strings cross the
        driver instead of a tuple per row), parsed here with ``bytes.split``
        and numpy. A page with a row changed after ``upto``, a time before
        the epoch, or player ids that contain the separator is read by
        :meth:`totals_upto` instead. O(batch log n) in the database,
        O(batch) here.
        """
        params = (board, season, after, batch) if until is None else (board, season, after, until, batch)
        (names, points, seconds, count, last_id, last_player, first_at), = self._read(
            self._columns_query(with_seconds, until is not None), params)
        count = int(count)
        if not count:
            return TotalsColumns([], np.empty(0, np.int64), np.empty(0, np.int64) if with_seconds else None,
                                 None)
        if int(last_id) <= upto and not (with_seconds and first_at < 0):
            players = names.split(PLAYER_SEPARATOR)  # bytes: the query casts the joined ids
            point_column = np.fromstring(points, dtype=np.int64, sep=" ")
            second_column = np.fromstring(seconds, dtype=np.int64, sep=" ") if with_seconds else None
            if len(players) == count == len(point_column) and (second_column is None
                                                               or len(second_column) == count):
                return TotalsColumns(players, point_column, second_column,
                                     last_player if count == batch else None)
        page = self.totals_upto(season, upto, after, batch, until=until, board=board)
        return TotalsColumns([p.encode() for p in page.players], np.array(page.points, dtype=np.int64),
                             np.floor(np.clip(page.ats, -4e18, 4e18)).astype(np.int64) if with_seconds else None,
                             page.next_after)

    def totals_splits(self, season: str, parts: int, *, board: str = "") -> list[str]:
        """Player ids that cut a season's totals into ``parts`` ranges of about
        the same size (each id ends a range; fewer when there are few
        players), for reading the ranges side by side. O(n) index steps."""
        n = self.count(season, board=board)
        cuts: list[str] = []
        for k in range(1, parts):
            rows = self._read("SELECT player FROM totals WHERE board = ? AND season = ? ORDER BY player "
                              "LIMIT 1 OFFSET ?", (board, season, n * k // parts))
            if rows and (not cuts or rows[0][0] != cuts[-1]):
                cuts.append(rows[0][0])
        return cuts

    @contextmanager
    def reading_copy(self) -> Iterator[SQLStore]:
        """This store on a connection of its own, for reads in another thread
        beside this one (its lock and connection are not shared); closed on
        exit."""
        copy = object.__new__(type(self))
        copy.__dict__.update(self.__dict__)
        copy._lock = threading.RLock()
        copy._conn = self._connect()
        try:
            yield copy
        finally:
            copy._conn.close()

    def time_range(self, season: str, *, board: str = "") -> tuple[float, float] | None:
        """The earliest and the latest time of a season's totals, None without
        any: what a rebuild checks against the board's ``time_bits`` before it
        writes anything. O(n) over the season's totals."""
        (low, high), = self._read("SELECT MIN(at), MAX(at) FROM totals WHERE board = ? AND season = ?",
                                  (board, season))
        return None if low is None else (float(low), float(high))

    def count(self, season: str, *, board: str = "") -> int:
        """How many players have a total in a season of ``board``."""
        return int(self._read("SELECT COUNT(*) FROM totals WHERE board = ? AND season = ?",
                              (board, season))[0][0])

    def distinct_above(self, season: str, points: int, *, descending: bool = True, board: str = "") -> int:
        """How many distinct totals of a season of ``board`` rank above ``points``
        (greater when ``descending``, else smaller): a dense rank is that plus one."""
        sign = ">" if descending else "<"
        return int(self._read(f"SELECT COUNT(DISTINCT points) FROM totals WHERE board = ? AND season = ? "
                              f"AND points {sign} ?{NOT_BANNED}", (board, season, points, board))[0][0])

    def count_above(self, season: str, points: int, *, descending: bool = True, board: str = "") -> int:
        """How many totals of a season of ``board`` rank above ``points``
        (greater when ``descending``, else smaller): a competition rank is that plus one."""
        sign = ">" if descending else "<"
        return int(self._read(f"SELECT COUNT(*) FROM totals WHERE board = ? AND season = ? "
                              f"AND points {sign} ?{NOT_BANNED}", (board, season, points, board))[0][0])

    def top(self, season: str, n: int, *, descending: bool = True,
            earliest_first: bool | None = True, board: str = "", offset: int = 0) -> list[Total]:
        """The n best totals of a season of ``board`` (after the first
        ``offset``), in a board's order: points (most first when
        ``descending``), then who reached them first (``earliest_first``;
        False: last; None: no tie-break), then the player id as a sorted set
        orders equal scores (reversed on a descending board). The board's
        banned players (``ban``) are left out, here and in ``count_above`` and
        ``distinct_above``."""
        way = "DESC" if descending else "ASC"
        if earliest_first is None:
            ties = f"player {way}"
        else:
            ties = f"at {'ASC' if earliest_first else 'DESC'}, player {way}"
        rows = self._read(f"SELECT player, points, at FROM totals WHERE board = ? AND season = ?{NOT_BANNED} "
                          f"ORDER BY points {way}, {ties} LIMIT ? OFFSET ?", (board, season, board, n, offset))
        return [Total(p, int(pts), float(at)) for p, pts, at in rows]

    def history(self, player: str, season: str | None = None, *, board: str = "") -> list[Event]:
        """A player's events on ``board`` (score and correction), oldest first."""
        if season is None:
            rows = self._read(f"SELECT {_EVENT_COLUMNS} FROM events WHERE board = ? AND player = ? ORDER BY id",
                              (board, player))
        else:
            rows = self._read(f"SELECT {_EVENT_COLUMNS} FROM events WHERE board = ? AND player = ? AND season = ? "
                              "ORDER BY id", (board, player, season))
        return [_event(r) for r in rows]

    def standings(self, season: str, n: int | None = None, *, board: str = "") -> list[Standing]:
        """An archived season's standings of ``board``, best first (all of them, or the first n)."""
        rows = self._read("SELECT rank, player, points FROM standings WHERE board = ? AND season = ? "
                          "ORDER BY position LIMIT ?", (board, season, self.unlimited if n is None else n))
        return [Standing(int(r), p, int(pts)) for r, p, pts in rows]
