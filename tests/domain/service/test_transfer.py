"""Export and import (fastrank.service.transfer) on the three backends, with
SQLite and PostgreSQL stores: a round trip comes back equal, a second
import records nothing, a bad row names itself and writes nothing of its batch."""
from __future__ import annotations

import io
import uuid

import pytest

from fastrank import Leaderboard, PostgresStore, SQLiteStore, ScoreService
from fastrank.service.transfer import (BOARD_FIELDS, EVENT_FIELDS, export_board, export_events, import_rows,
                                       read_rows, write_rows)

T0 = 1_790_000_000


@pytest.fixture(params=["sqlite", "postgres"])
def store_factory(request, tmp_path):
    made = []

    def make(name):
        if request.param == "sqlite":
            s = SQLiteStore(tmp_path / f"{name}.db")
        else:                                       # a schema of its own for each store
            import psycopg
            server = request.getfixturevalue("postgres_server")
            schema = f"transfer_{name}_{uuid.uuid4().hex[:8]}"
            with psycopg.connect(server.dsn, autocommit=True) as conn:
                conn.execute(f"CREATE SCHEMA {schema}")
            s = PostgresStore(f"{server.dsn} options='-csearch_path={schema}'")
        made.append(s)
        return s

    yield make
    for s in made:
        s.close()


def standings(board):
    return [(e.rank, e.player, e.points) for e in board.iter()]


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_board_round_trip_comes_back_equal(client, store_factory, fmt):
    board = Leaderboard(client, "src", season="s1")
    source = ScoreService(board, store_factory("src"))
    for i in range(60):
        source.submit(f"m{i}", f"p{i % 23}", i % 9 + 1, at=T0 + i)
    out = io.StringIO()
    assert write_rows(export_board(board), out, fmt, BOARD_FIELDS) == 23
    target_board = Leaderboard(client, "dst", season="s1")
    target = ScoreService(target_board, store_factory("dst"))
    first = import_rows(target, read_rows(io.StringIO(out.getvalue()), fmt), batch=7)
    assert first.rows == 23 and first.recorded == 23
    # a standings file carries no times: equal points, ties ordered by import
    assert {p: pts for _, p, pts in standings(target_board)} == {p: pts for _, p, pts in standings(board)}
    again = import_rows(target, read_rows(io.StringIO(out.getvalue()), fmt), batch=7)
    assert again.rows == 23 and again.recorded == 0
    assert {p: pts for _, p, pts in standings(target_board)} == {p: pts for _, p, pts in standings(board)}


def test_events_round_trip_through_jsonl(client, store_factory):
    board = Leaderboard(client, "ev", season="s1")
    source = ScoreService(board, store_factory("ev"))
    for i in range(40):
        source.submit_match(f"m{i}", {f"p{i % 5}": i + 1, f"q{i % 3}": 2}, at=T0 + i)
    source.tombstone_match("m3")                    # marks two scores, logs two corrections
    out = io.StringIO()
    assert write_rows(export_events(source.store, season="s1", board=source.board_key), out, "jsonl", EVENT_FIELDS) == 82
    rows = list(read_rows(io.StringIO(out.getvalue()), "jsonl"))
    assert [r["match_id"] for r in rows[:2]] == ["m0", "m0"]
    copy_board = Leaderboard(client, "ev2", season="s1")
    copy = ScoreService(copy_board, store_factory("ev2"))
    assert import_rows(copy, rows).recorded == 78
    assert standings(copy_board) == standings(board)             # times travel: ties too
    assert import_rows(copy, rows).recorded == 0
    assert standings(copy_board) == standings(board)


def test_a_bad_row_is_named_and_its_batch_is_not_written(client, store_factory):
    board = Leaderboard(client, "bad", season="s1")
    service = ScoreService(board, store_factory("bad"))
    rows = [{"player": f"p{i}", "points": str(i + 1)} for i in range(5)] + [{"player": "x", "points": "ten"}]
    with pytest.raises(ValueError, match="row 6: points must be an integer, not 'ten'"):
        import_rows(service, rows, batch=3)
    assert {e.player for e in board.iter()} == {"p0", "p1", "p2"}     # the first batch only
    with pytest.raises(ValueError, match="row 1: no 'points' column"):
        import_rows(service, [{"player": "p"}])


def test_formats_and_bad_files():
    with pytest.raises(ValueError, match="format must be one of"):
        write_rows([], io.StringIO(), "xml", BOARD_FIELDS)
    with pytest.raises(ValueError, match="format must be one of"):
        list(read_rows(io.StringIO(""), "xml"))
    with pytest.raises(ValueError, match="line 2: not JSON"):
        list(read_rows(io.StringIO('{"a": 1}\n{oops\n'), "jsonl"))
    with pytest.raises(ValueError, match="line 1: a row must be a JSON object"):
        list(read_rows(io.StringIO('[1, 2]\n'), "jsonl"))
    out = io.StringIO()
    write_rows([{"rank": 1, "player": "a,b", "points": 3}], out, "csv", BOARD_FIELDS)
    assert list(read_rows(io.StringIO(out.getvalue()), "csv")) == [{"rank": "1", "player": "a,b", "points": "3"}]
