"""The record of truth for scores: an append-only log of events in SQL.

Two tables, written together in one transaction:

- ``events``: the log. A *score* event is one player's points from one match
  (``match_id`` and ``player`` unique together, which makes a retried submit
  find its first event instead of adding a second). A *correction* event,
  written when events are tombstoned, carries the player's recomputed total.
  Event ids grow in commit order (writers take one lock per transaction), so
  an applier that remembers the last id it applied can tail the log with
  ``events_after`` and never skip a late commit.
- ``totals``: per season and player, the sum of the surviving score events,
  the time of the latest one (the time the player reached that total, which
  a tie-breaking board needs) and the id of the last event that changed the
  row. ``top`` is an indexed query on it; ``totals_upto`` pages through it as
  of one event id, which is what a board rebuild loads.

``SQLStore`` holds the logic once; ``SQLiteStore`` and ``PostgresStore``
supply the connection, the placeholder style, the DDL and the writer lock.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from fastrank.leaderboard.scorebits import ScoreCodec
    from fastrank.service._totals import ScoreOrderScan
    from fastrank.service.packed import PackedTotals

__all__ = ["CeilingExceeded", "ConflictingResubmit", "Event", "SQLStore", "Standing", "Total", "TotalsColumns",
           "TotalsPage"]

DAY_SECONDS = 86_400


class Event(NamedTuple):
    """One row of the log. ``kind`` is ``"score"`` or ``"correction"``; a
    correction's ``points`` is the player's new total and its ``match_id`` None."""

    id: int
    kind: str
    season: str
    match_id: str | None
    player: str
    points: int
    at: float
    tombstoned: bool


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


#: Joins the player ids of a page in one text (a page whose ids contain it is read row by row).
PLAYER_SEPARATOR = b"\x1f"


class Standing(NamedTuple):
    """One row of an archived season."""

    rank: int
    player: str
    points: int


class ConflictingResubmit(ValueError):
    """A (match id, player) already recorded with other points or another season."""


class CeilingExceeded(ValueError):
    """A player would pass the points allowed per day; nothing was recorded."""


_EVENT_COLUMNS = "id, kind, season, match_id, player, points, at, tombstoned"


def _event(row: tuple[Any, ...]) -> Event:
    return Event(int(row[0]), row[1], row[2], row[3], row[4], int(row[5]), float(row[6]),
                 bool(row[7]))


class SQLStore:
    """The store's logic over a DB-API connection; see the module docstring.

    Subclasses set ``placeholder``, ``unlimited``, ``id_column`` and
    ``bool_type`` and implement ``_connect`` and ``_begin_write``.
    """

    placeholder = "?"
    #: The events' id column: grows with every insert, never reused.
    id_column = "INTEGER PRIMARY KEY AUTOINCREMENT"
    bool_type = "INTEGER"
    #: The LIMIT argument that means no limit.
    unlimited: Any = -1

    def __init__(self) -> None:
        self._lock = threading.RLock()  # one connection, shared by the caller's threads
        self._conn: Any = self._connect()
        with self._write() as cur:
            for statement in self._schema():
                cur.execute(statement)

    # -- what a dialect provides --------------------------------------------------

    def _connect(self) -> Any:
        raise TypeError("SQLStore is abstract: use SQLiteStore or PostgresStore")

    def _schema(self) -> list[str]:
        return [
            f"CREATE TABLE IF NOT EXISTS events (id {self.id_column}, kind TEXT NOT NULL, "
            "season TEXT NOT NULL, match_id TEXT, player TEXT NOT NULL, points BIGINT NOT NULL, "
            f"at DOUBLE PRECISION NOT NULL, day BIGINT NOT NULL, tombstoned {self.bool_type} NOT NULL, "
            "UNIQUE (match_id, player))",
            "CREATE INDEX IF NOT EXISTS events_by_player_day ON events (player, day)",
            "CREATE INDEX IF NOT EXISTS events_by_season_player ON events (season, player)",
            "CREATE TABLE IF NOT EXISTS totals (season TEXT NOT NULL, player TEXT NOT NULL, "
            "points BIGINT NOT NULL, at DOUBLE PRECISION NOT NULL, last_id BIGINT NOT NULL, "
            "PRIMARY KEY (season, player))",
            "CREATE INDEX IF NOT EXISTS totals_by_rank ON totals (season, points DESC, at, player)",
            "CREATE TABLE IF NOT EXISTS standings (season TEXT NOT NULL, position BIGINT NOT NULL, "
            "rank BIGINT NOT NULL, player TEXT NOT NULL, points BIGINT NOT NULL, "
            "PRIMARY KEY (season, position))",
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
        season, after, the last player when ``bounded``, batch."""
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
               max_per_day: int | None = None,
               max_total: int | None = None) -> tuple[list[Event], bool]:
        """Record one match's points for each player, all or nothing.

        Returns (the events, duplicate): a match already recorded with the
        same points returns its first events and True, adding nothing.

        :raises ConflictingResubmit: a (match id, player) exists with other
            points or another season (nothing recorded).
        :raises CeilingExceeded: a player would pass ``max_per_day`` points on
            the UTC day of ``at``, or a total of magnitude ``max_total`` (the
            most the board holds); nothing is recorded.
        """
        return self.record_matches(season, [(match_id, points, at)], max_per_day=max_per_day,
                                   max_total=max_total)[0]

    def record_matches(self, season: str, matches: Sequence[tuple[str, Mapping[str, int], float]], *,
                       max_per_day: int | None = None,
                       max_total: int | None = None) -> list[tuple[list[Event], bool]]:
        """Record many matches ((match id, {player: points}, at) each) in one
        transaction, each as :meth:`record` does; any refusal records none."""
        with self._write() as cur:
            return [self._record_match(cur, season, match_id, points, at, max_per_day, max_total)
                    for match_id, points, at in matches]

    def _record_match(self, cur: Any, season: str, match_id: str, points: Mapping[str, int], at: float,
                      max_per_day: int | None, max_total: int | None) -> tuple[list[Event], bool]:
        day = int(at // DAY_SECONDS)
        out: list[Event] = []
        fresh = 0
        for player, pts in points.items():
            cur.execute(self._sql(f"SELECT {_EVENT_COLUMNS} FROM events "
                                  "WHERE match_id = ? AND player = ?"), (match_id, player))
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
                cur.execute(self._sql("SELECT COALESCE(SUM(points), 0) FROM events WHERE "
                                      "player = ? AND day = ? AND kind = 'score' "
                                      "AND NOT tombstoned"), (player, day))
                today = int(cur.fetchone()[0])
                if today + pts > max_per_day:
                    raise CeilingExceeded(
                        f"{player!r} would have {today + pts} points on day {day} "
                        f"(at most {max_per_day} a day)")
            cur.execute(self._sql("INSERT INTO events (kind, season, match_id, player, points, "
                                  "at, day, tombstoned) VALUES ('score', ?, ?, ?, ?, ?, ?, "
                                  "FALSE) RETURNING " + _EVENT_COLUMNS),
                        (season, match_id, player, pts, at, day))
            event = _event(cur.fetchone())
            out.append(event)
            self._upsert_total(cur, season, player, pts, at, event.id, max_total)
            fresh += 1
        if fresh and fresh != len(out):
            # Part of the match was there already: a resubmit that names
            # other players than the first one is a conflict too.
            raise ConflictingResubmit(f"match {match_id!r} was recorded with other players")
        return out, fresh == 0

    def _upsert_total(self, cur: Any, season: str, player: str, points: int, at: float,
                      event_id: int, max_total: int | None) -> None:
        cur.execute(self._sql("INSERT INTO totals (season, player, points, at, last_id) "
                              "VALUES (?, ?, ?, ?, ?) ON CONFLICT (season, player) DO UPDATE SET "
                              "points = totals.points + excluded.points, "
                              "at = CASE WHEN excluded.at > totals.at THEN excluded.at "
                              "ELSE totals.at END, last_id = excluded.last_id RETURNING points"),
                    (season, player, points, at, event_id))
        total = int(cur.fetchone()[0])
        if max_total is not None and not -max_total <= total <= max_total:
            raise CeilingExceeded(f"{player!r} would have {total} points, more than the board holds "
                                  f"(magnitude at most {max_total})")

    def tombstone_player(self, season: str, player: str) -> Event | None:
        """Tombstone a player's score events in a season; the correction event
        with their total from what survives (None if nothing was live)."""
        with self._write() as cur:
            cur.execute(self._sql("UPDATE events SET tombstoned = TRUE WHERE season = ? AND "
                                  "player = ? AND kind = 'score' AND NOT tombstoned"),
                        (season, player))
            if cur.rowcount == 0:
                return None
            return self._correct(cur, season, player)

    def tombstone_match(self, match_id: str) -> list[Event]:
        """Tombstone a match's events; one correction event per player it touched."""
        with self._write() as cur:
            cur.execute(self._sql("UPDATE events SET tombstoned = TRUE WHERE match_id = ? AND "
                                  "NOT tombstoned RETURNING season, player"), (match_id,))
            touched = sorted(set(cur.fetchall()))
            return [self._correct(cur, season, player) for season, player in touched]

    def _correct(self, cur: Any, season: str, player: str) -> Event:
        """Recompute a player's total from surviving events; log it as a correction
        whose ``at`` is when the player reached that total (their latest surviving
        event; 0 when none survives)."""
        cur.execute(self._sql("SELECT COALESCE(SUM(points), 0), COALESCE(MAX(at), 0) FROM events "
                              "WHERE season = ? AND player = ? AND kind = 'score' "
                              "AND NOT tombstoned"), (season, player))
        total, reached = cur.fetchone()
        cur.execute(self._sql("INSERT INTO events (kind, season, match_id, player, points, at, day, "
                              "tombstoned) VALUES ('correction', ?, NULL, ?, ?, ?, ?, FALSE) "
                              "RETURNING " + _EVENT_COLUMNS),
                    (season, player, int(total), float(reached), int(reached // DAY_SECONDS)))
        event = _event(cur.fetchone())
        cur.execute(self._sql("UPDATE totals SET points = ?, at = ?, last_id = ? "
                              "WHERE season = ? AND player = ?"),
                    (int(total), float(reached), event.id, season, player))
        return event

    def archive(self, season: str, standings: list[Standing]) -> int:
        """Write a season's final standings (replacing an earlier archive of it)."""
        with self._write() as cur:
            cur.execute(self._sql("DELETE FROM standings WHERE season = ?"), (season,))
            for position, s in enumerate(standings):
                cur.execute(self._sql("INSERT INTO standings (season, position, rank, player, points) "
                                      "VALUES (?, ?, ?, ?, ?)"),
                            (season, position, s.rank, s.player, s.points))
        return len(standings)

    # -- reads ----------------------------------------------------------------------------

    def events_after(self, after_id: int, limit: int = 10_000) -> list[Event]:
        """The log after an event id, in id order (what an applier tails)."""
        rows = self._read(f"SELECT {_EVENT_COLUMNS} FROM events WHERE id > ? ORDER BY id LIMIT ?",
                          (after_id, limit))
        return [_event(r) for r in rows]

    def last_event_id(self) -> int:
        """The id of the newest event in the log (0 when it is empty)."""
        return int(self._read("SELECT COALESCE(MAX(id), 0) FROM events")[0][0])

    def total(self, season: str, player: str) -> Total | None:
        """A player's total in a season, or None when they have none. One indexed query."""
        rows = self._read("SELECT player, points, at FROM totals WHERE season = ? AND player = ?",
                          (season, player))
        return Total(rows[0][0], int(rows[0][1]), float(rows[0][2])) if rows else None

    def totals(self, season: str, batch: int = 50_000) -> Iterator[list[Total]]:
        """Every player's total in a season, in batches (keyset pagination by player)."""
        after = ""
        while True:
            rows = self._read("SELECT player, points, at FROM totals WHERE season = ? AND player > ? "
                              "ORDER BY player LIMIT ?", (season, after, batch))
            if not rows:
                return
            yield [Total(p, int(pts), float(at)) for p, pts, at in rows]
            after = rows[-1][0]

    def totals_upto(self, season: str, upto: int, after: str = "",
                    batch: int = 50_000, *, until: str | None = None) -> TotalsPage:
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
        params = (season, after, batch) if until is None else (season, after, until, batch)
        rows = self._read("SELECT player, points, at, last_id FROM totals WHERE season = ? AND "
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
                then = self.total_upto(season, player, upto)
                if then is None:
                    continue
                pts, at = then.points, then.at
            page.players.append(player)
            page.points.append(int(pts))
            page.ats.append(float(at))
        return page

    def total_upto(self, season: str, player: str, upto: int) -> Total | None:
        """A player's total as of event ``upto``, summed from the surviving score
        events up to it (None when they had none by then). One indexed query."""
        (count, pts, at), = self._read(
            "SELECT COUNT(*), COALESCE(SUM(points), 0), COALESCE(MAX(at), 0) FROM events WHERE "
            "season = ? AND player = ? AND kind = 'score' AND NOT tombstoned AND id <= ?",
            (season, player, upto))
        return Total(player, int(pts), float(at)) if int(count) else None

    def score_order_scan(self, season: str, upto: int, codec: ScoreCodec) -> ScoreOrderScan | None:
        """A compiled scan of a season's totals as of event ``upto`` in the
        ascending order of a board encoded by ``codec``, chunk by chunk
        (``fastrank.service._totals.ScoreOrderScan``), or None when this store or that
        order has none (the caller reads the totals whole and sorts them)."""
        return None

    def packed_totals(self, season: str, upto: int, parts: int) -> PackedTotals | None:
        """Every total of a season as of event ``upto`` as packed columns
        (``fastrank.service.packed``), read by a compiled reader in ``parts``
        ranges side by side; None when this store has no such reader (the
        caller pages through ``totals_columns_upto`` instead)."""
        return None

    def totals_columns_upto(self, season: str, upto: int, after: str = "", batch: int = 50_000, *,
                            until: str | None = None, with_seconds: bool = True) -> TotalsColumns:
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
        params = (season, after, batch) if until is None else (season, after, until, batch)
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
        page = self.totals_upto(season, upto, after, batch, until=until)
        return TotalsColumns([p.encode() for p in page.players], np.array(page.points, dtype=np.int64),
                             np.floor(np.clip(page.ats, -4e18, 4e18)).astype(np.int64) if with_seconds else None,
                             page.next_after)

    def totals_splits(self, season: str, parts: int) -> list[str]:
        """Player ids that cut a season's totals into ``parts`` ranges of about
        the same size (each id ends a range; fewer when there are few
        players), for reading the ranges side by side. O(n) index steps."""
        n = self.count(season)
        cuts: list[str] = []
        for k in range(1, parts):
            rows = self._read("SELECT player FROM totals WHERE season = ? ORDER BY player LIMIT 1 OFFSET ?",
                              (season, n * k // parts))
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

    def time_range(self, season: str) -> tuple[float, float] | None:
        """The earliest and the latest time of a season's totals, None without
        any: what a rebuild checks against the board's ``time_bits`` before it
        writes anything. O(n) over the season's totals."""
        (low, high), = self._read("SELECT MIN(at), MAX(at) FROM totals WHERE season = ?", (season,))
        return None if low is None else (float(low), float(high))

    def count(self, season: str) -> int:
        """How many players have a total in a season."""
        return int(self._read("SELECT COUNT(*) FROM totals WHERE season = ?", (season,))[0][0])

    def top(self, season: str, n: int, *, descending: bool = True,
            earliest_first: bool | None = True) -> list[Total]:
        """The n best totals, in a board's order: points (most first when
        ``descending``), then who reached them first (``earliest_first``;
        False: last; None: no tie-break), then the player id as a sorted set
        orders equal scores (reversed on a descending board)."""
        way = "DESC" if descending else "ASC"
        if earliest_first is None:
            ties = f"player {way}"
        else:
            ties = f"at {'ASC' if earliest_first else 'DESC'}, player {way}"
        rows = self._read(f"SELECT player, points, at FROM totals WHERE season = ? "
                          f"ORDER BY points {way}, {ties} LIMIT ?", (season, n))
        return [Total(p, int(pts), float(at)) for p, pts, at in rows]

    def history(self, player: str, season: str | None = None) -> list[Event]:
        """A player's events (score and correction), oldest first."""
        if season is None:
            rows = self._read(f"SELECT {_EVENT_COLUMNS} FROM events WHERE player = ? ORDER BY id",
                              (player,))
        else:
            rows = self._read(f"SELECT {_EVENT_COLUMNS} FROM events WHERE player = ? AND season = ? "
                              "ORDER BY id", (player, season))
        return [_event(r) for r in rows]

    def standings(self, season: str, n: int | None = None) -> list[Standing]:
        """An archived season's standings, best first (all of them, or the first n)."""
        rows = self._read("SELECT rank, player, points FROM standings WHERE season = ? "
                          "ORDER BY position LIMIT ?", (season, self.unlimited if n is None else n))
        return [Standing(int(r), p, int(pts)) for r, p, pts in rows]
