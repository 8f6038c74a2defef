"""The record of truth for scores: an append-only log of events in SQL.

Two tables, written together in one transaction:

- ``events``: the log. A *score* event is one player's points from one match
  (``match_id`` and ``player`` unique together, which makes a retried submit
  find its first event instead of adding a second). A *correction* event,
  written when events are tombstoned, carries the player's recomputed total.
  Event ids grow in commit order (writers take one lock per transaction), so
  an applier that remembers the last id it applied can tail the log with
  ``events_after`` and never skip a late commit.
- ``totals``: per season and player, the sum of the surviving score events
  and the time of the latest one (the time the player reached that total,
  which a tie-breaking board needs). ``top`` is an indexed query on it and
  ``totals`` streams it for a rebuild.

``SQLStore`` holds the logic once; ``SQLiteStore`` and ``PostgresStore``
supply the connection, the placeholder style, the DDL and the writer lock.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, NamedTuple

__all__ = ["CeilingExceeded", "ConflictingResubmit", "Event", "SQLStore", "Standing", "Total"]

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
            "points BIGINT NOT NULL, at DOUBLE PRECISION NOT NULL, PRIMARY KEY (season, player))",
            "CREATE INDEX IF NOT EXISTS totals_by_rank ON totals (season, points DESC, at, player)",
            "CREATE TABLE IF NOT EXISTS standings (season TEXT NOT NULL, rank BIGINT NOT NULL, "
            "player TEXT NOT NULL, points BIGINT NOT NULL, PRIMARY KEY (season, rank))",
        ]

    def _begin_write(self, cur: Any) -> None:
        """Open a write transaction that serialises writers (ids in commit order)."""
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
        with self._lock:
            self._conn.close()

    # -- writes -------------------------------------------------------------------------

    def record(self, season: str, match_id: str, points: Mapping[str, int], at: float, *,
               max_per_day: int | None = None) -> tuple[list[Event], bool]:
        """Record one match's points for each player, all or nothing.

        Returns (the events, duplicate): a match already recorded with the
        same points returns its first events and True, adding nothing.

        :raises ConflictingResubmit: a (match id, player) exists with other
            points or another season (nothing recorded).
        :raises CeilingExceeded: a player would pass ``max_per_day`` points on
            the UTC day of ``at`` (nothing recorded).
        """
        day = int(at // DAY_SECONDS)
        out: list[Event] = []
        fresh = 0
        with self._write() as cur:
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
                out.append(_event(cur.fetchone()))
                self._upsert_total(cur, season, player, pts, at)
                fresh += 1
            if fresh and fresh != len(out):
                # Part of the match was there already: a resubmit that names
                # other players than the first one is a conflict too.
                raise ConflictingResubmit(f"match {match_id!r} was recorded with other players")
        return out, fresh == 0

    def _upsert_total(self, cur: Any, season: str, player: str, points: int, at: float) -> None:
        cur.execute(self._sql("INSERT INTO totals (season, player, points, at) VALUES (?, ?, ?, ?) "
                              "ON CONFLICT (season, player) DO UPDATE SET "
                              "points = totals.points + excluded.points, "
                              "at = CASE WHEN excluded.at > totals.at THEN excluded.at "
                              "ELSE totals.at END"),
                    (season, player, points, at))

    def tombstone_player(self, season: str, player: str, at: float) -> Event | None:
        """Tombstone a player's score events in a season; the correction event
        with their total from what survives (None if nothing was live)."""
        with self._write() as cur:
            cur.execute(self._sql("UPDATE events SET tombstoned = TRUE WHERE season = ? AND "
                                  "player = ? AND kind = 'score' AND NOT tombstoned"),
                        (season, player))
            if cur.rowcount == 0:
                return None
            return self._correct(cur, season, player, at)

    def tombstone_match(self, match_id: str, at: float) -> list[Event]:
        """Tombstone a match's events; one correction event per player it touched."""
        with self._write() as cur:
            cur.execute(self._sql("UPDATE events SET tombstoned = TRUE WHERE match_id = ? AND "
                                  "NOT tombstoned RETURNING season, player"), (match_id,))
            touched = sorted(set(cur.fetchall()))
            return [self._correct(cur, season, player, at) for season, player in touched]

    def _correct(self, cur: Any, season: str, player: str, at: float) -> Event:
        """Recompute a player's total from surviving events; log it as a correction."""
        cur.execute(self._sql("SELECT COALESCE(SUM(points), 0), COALESCE(MAX(at), 0) FROM events "
                              "WHERE season = ? AND player = ? AND kind = 'score' "
                              "AND NOT tombstoned"), (season, player))
        total, reached = cur.fetchone()
        cur.execute(self._sql("UPDATE totals SET points = ?, at = ? WHERE season = ? AND player = ?"),
                    (int(total), float(reached), season, player))
        cur.execute(self._sql("INSERT INTO events (kind, season, match_id, player, points, at, day, "
                              "tombstoned) VALUES ('correction', ?, NULL, ?, ?, ?, ?, FALSE) "
                              "RETURNING " + _EVENT_COLUMNS),
                    (season, player, int(total), at, int(at // DAY_SECONDS)))
        return _event(cur.fetchone())

    def archive(self, season: str, standings: list[Standing]) -> int:
        """Write a season's final standings (replacing an earlier archive of it)."""
        with self._write() as cur:
            cur.execute(self._sql("DELETE FROM standings WHERE season = ?"), (season,))
            for s in standings:
                cur.execute(self._sql("INSERT INTO standings (season, rank, player, points) "
                                      "VALUES (?, ?, ?, ?)"), (season, s.rank, s.player, s.points))
        return len(standings)

    # -- reads ----------------------------------------------------------------------------

    def events_after(self, after_id: int, limit: int = 10_000) -> list[Event]:
        """The log after an event id, in id order (what an applier tails)."""
        rows = self._read(f"SELECT {_EVENT_COLUMNS} FROM events WHERE id > ? ORDER BY id LIMIT ?",
                          (after_id, limit))
        return [_event(r) for r in rows]

    def last_event_id(self) -> int:
        return int(self._read("SELECT COALESCE(MAX(id), 0) FROM events")[0][0])

    def total(self, season: str, player: str) -> Total | None:
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

    def count(self, season: str) -> int:
        return int(self._read("SELECT COUNT(*) FROM totals WHERE season = ?", (season,))[0][0])

    def top(self, season: str, n: int) -> list[Total]:
        """The n best totals: most points, then the earliest to reach them, then by id."""
        rows = self._read("SELECT player, points, at FROM totals WHERE season = ? "
                          "ORDER BY points DESC, at ASC, player ASC LIMIT ?", (season, n))
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
                          "ORDER BY rank LIMIT ?", (season, self.unlimited if n is None else n))
        return [Standing(int(r), p, int(pts)) for r, p, pts in rows]
