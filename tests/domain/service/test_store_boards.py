"""The store keys everything by board and season (#24): two services of boards
"arena" and "race" with the same season on one store (a SQLite file, a
PostgreSQL schema) share no events, receipts, pending applies, match ids,
tombstones, rebuilds or standings; the compiled SQLite readers read one
board's rows; a store of the layout before boards is migrated explicitly
(``migrate_board=``), and a layout this version does not know is refused."""
from __future__ import annotations

import sqlite3

import pytest

from fastrank import Engine, Leaderboard, PostgresStore, SQLiteStore, ScoreService
from fastrank.service import ConflictingResubmit, StoreSchemaError
from fastrank.service._totals import ScoreOrderScan, scan_totals
from fastrank.service.store import SCHEMA_VERSION

T0 = 1_790_000_000

#: The tables of the layout before boards (schema 1), as fastrank wrote them before this change.
OLD_SCHEMA = [
    "CREATE TABLE events (id {id}, kind TEXT NOT NULL, season TEXT NOT NULL, match_id TEXT, "
    "player TEXT NOT NULL, points BIGINT NOT NULL, at DOUBLE PRECISION NOT NULL, day BIGINT NOT NULL, "
    "tombstoned {bool} NOT NULL, UNIQUE (match_id, player))",
    "CREATE INDEX events_by_player_day ON events (player, day)",
    "CREATE INDEX events_by_season_player ON events (season, player)",
    "CREATE TABLE totals (season TEXT NOT NULL, player TEXT NOT NULL, points BIGINT NOT NULL, "
    "at DOUBLE PRECISION NOT NULL, last_id BIGINT NOT NULL, PRIMARY KEY (season, player))",
    "CREATE INDEX totals_by_rank ON totals (season, points DESC, at, player)",
    "CREATE TABLE standings (season TEXT NOT NULL, position BIGINT NOT NULL, rank BIGINT NOT NULL, "
    "player TEXT NOT NULL, points BIGINT NOT NULL, PRIMARY KEY (season, position))",
]
OLD_ROWS = [
    "INSERT INTO events (kind, season, match_id, player, points, at, day, tombstoned) "
    f"VALUES ('score', 's1', 'm1', 'ann', 10, {T0}, {T0 // 86400}, FALSE)",
    "INSERT INTO events (kind, season, match_id, player, points, at, day, tombstoned) "
    f"VALUES ('score', 's1', 'm1', 'bob', 7, {T0}, {T0 // 86400}, FALSE)",
    f"INSERT INTO totals VALUES ('s1', 'ann', 10, {T0}, 1)",
    f"INSERT INTO totals VALUES ('s1', 'bob', 7, {T0}, 2)",
    "INSERT INTO standings VALUES ('s0', 0, 1, 'old', 99)",
]


@pytest.fixture(params=["sqlite", "postgres"])
def kind(request):
    return request.param


@pytest.fixture
def opener(kind, tmp_path, request):
    """(open the store again, run raw SQL on its database)."""
    opened = []
    if kind == "sqlite":
        path = tmp_path / "scores.db"

        def open_store(**kwargs):
            opened.append(SQLiteStore(path, **kwargs))
            return opened[-1]

        def raw(statements):
            with sqlite3.connect(path) as conn:
                for s in statements:
                    conn.execute(s.format(id="INTEGER PRIMARY KEY AUTOINCREMENT", bool="INTEGER"))
    else:
        import psycopg

        dsn = request.getfixturevalue("postgres_dsn")

        def open_store(**kwargs):
            opened.append(PostgresStore(dsn, **kwargs))
            return opened[-1]

        def raw(statements):
            with psycopg.connect(dsn, autocommit=True) as conn:
                for s in statements:
                    conn.execute(s.format(id="BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY", bool="BOOLEAN"))
    yield open_store, raw
    for s in opened:
        s.close()


def services(store, engine=None, **kwargs):
    engine = engine or Engine()
    arena = ScoreService(Leaderboard(engine, "arena", season="s1"), store, **kwargs)
    race = ScoreService(Leaderboard(engine, "race", season="s1"), store, **kwargs)
    return arena, race


def state(board):
    return {e.player: e.points for e in board.iter()}


def test_two_boards_with_one_season_share_nothing(opener):
    open_store, _ = opener
    store = open_store()
    arena, race = services(store, apply=False)
    arena.submit("m1", "ann", 10, at=T0)
    assert race.apply_pending() == 0 and state(race.board) == {}
    assert arena.apply_pending() == 1 and state(arena.board) == {"ann": 10}
    # the same match id on the other board is another match, not a conflicting resubmit
    receipt = race.submit("m1", "ann", 3, at=T0)
    assert receipt.points == 3 and receipt != arena.submit("m1", "ann", 10, at=T0)
    with pytest.raises(ConflictingResubmit):
        arena.submit("m1", "ann", 11, at=T0)
    assert race.apply_pending() == 1 and state(race.board) == {"ann": 3}
    assert [e.points for e in race.history("ann")] == [3] and [e.points for e in arena.history("ann")] == [10]
    # tombstones, rebuilds and archives stay on their board
    assert race.tombstone_match("m1") == {"ann": 0}
    assert state(arena.board) == {"ann": 10}
    arena.board.client.delete(*arena.board.keys())
    assert arena.rebuild() == 1 and state(arena.board) == {"ann": 10}
    assert race.rebuild() == 1 and state(race.board) == {"ann": 0}
    assert arena.archive() == 1 and race.archive() == 1
    assert [(s.player, s.points) for s in store.standings("s1", board="arena")] == [("ann", 10)]
    assert [(s.player, s.points) for s in store.standings("s1", board="race")] == [("ann", 0)]
    assert store.count("s1", board="arena") == 1 and store.count("s1") == 0


def test_the_day_ceiling_counts_per_board(opener):
    open_store, _ = opener
    arena, race = services(open_store(), max_points_per_day=10, clock=lambda: float(T0))
    arena.submit("m1", "ann", 10, at=T0)
    assert race.submit("m2", "ann", 10, at=T0).points == 10


def test_the_compiled_readers_read_one_board(tmp_path):
    store = SQLiteStore(tmp_path / "scores.db")
    arena, race = services(store)
    arena.submit_match("m1", {"ann": 10, "bob": 5}, at=T0)
    race.submit_match("m1", {"cy": 7}, at=T0)
    upto = store.last_event_id()
    blob, offsets, points, _, _ = scan_totals(str(store.path), "s1", upto, board="arena")
    assert blob == b"annbob" and points.tolist() == [10, 5]
    scan = ScoreOrderScan(str(store.path), "s1", upto, False, False, 32, 30000, "race")
    chunk = scan.next_chunk(10)
    scan.close()
    assert chunk[0] == b"cy" and chunk[4].tolist() == [7]
    packed = store.packed_totals("s1", upto, 2, board="race")
    assert packed.blob == b"cy"
    for service, expected in ((arena, {"ann": 10, "bob": 5}), (race, {"cy": 7})):
        service.board.client.delete(*service.board.keys())
        service.rebuild()
        assert state(service.board) == expected
    store.close()


def test_a_new_store_records_its_schema_version(opener):
    open_store, _ = opener
    assert open_store().schema_version() == SCHEMA_VERSION == 2


def test_an_old_store_with_rows_needs_an_explicit_migration(opener):
    open_store, raw = opener
    raw(OLD_SCHEMA + OLD_ROWS)
    with pytest.raises(StoreSchemaError, match="migrate_board"):
        open_store()
    with pytest.raises(StoreSchemaError):  # nothing was changed by the refusal
        open_store()
    store = open_store(migrate_board="arena")
    assert store.schema_version() == SCHEMA_VERSION
    assert [(e.id, e.board, e.player, e.points, e.recorded_at) for e in store.events_after(0, board="arena")] == [
        (1, "arena", "ann", 10, T0), (2, "arena", "bob", 7, T0)]
    assert store.count("s1", board="arena") == 2 and store.count("s1") == 0
    assert [(s.player, s.points) for s in store.standings("s0", board="arena")] == [("old", 99)]
    arena, race = services(store)
    assert arena.rebuild() == 2 and state(arena.board) == {"ann": 10, "bob": 7}
    events, _ = store.record("s1", "m2", {"ann": 1}, T0 + 1, board="arena")
    assert events[0].id == 3                                 # new ids start above the kept ones
    assert open_store(migrate_board="other").schema_version() == SCHEMA_VERSION   # ignored once migrated
    assert store.count("s1", board="other") == 0


def test_an_empty_old_store_is_migrated_by_itself(opener):
    open_store, raw = opener
    raw(OLD_SCHEMA)
    store = open_store()
    assert store.schema_version() == SCHEMA_VERSION
    events, _ = store.record("s1", "m1", {"ann": 1}, T0, board="arena")
    assert events[0].id == 1 and store.count("s1", board="arena") == 1


def test_a_newer_or_unknown_layout_is_refused(opener):
    open_store, raw = opener
    raw(["CREATE TABLE fastrank_schema (version BIGINT NOT NULL)", "INSERT INTO fastrank_schema VALUES (3)"])
    with pytest.raises(StoreSchemaError, match="version 3.*upgrade fastrank"):
        open_store()
    raw(["DROP TABLE fastrank_schema", "CREATE TABLE events (id BIGINT, what TEXT)"])
    with pytest.raises(StoreSchemaError, match="unknown columns"):
        open_store(migrate_board="arena")


def test_reject_marks_events_of_its_board_once(opener):
    open_store, _ = opener
    store = open_store()
    (ann, bob), _ = store.record("s1", "m1", {"ann": 10, "bob": 4}, T0, board="arena")
    store.record("s1", "m2", {"ann": 5}, T0 + 1, board="arena")
    assert store.reject([ann.id, bob.id], "frozen", board="race") == []          # not race's events
    marked = store.reject([ann.id, bob.id], "frozen", board="arena")
    assert [(e.player, e.rejected, e.tombstoned) for e in marked] == [("ann", "frozen", True), ("bob", "frozen", True)]
    assert store.reject([ann.id], "later", board="arena")[0].rejected == "frozen"   # the first reason stays
    assert store.total("s1", "ann", board="arena").points == 5 and store.total("s1", "bob", board="arena") is None
    assert [e.id for e in store.rejected("s1", board="arena")] == [ann.id, bob.id]
