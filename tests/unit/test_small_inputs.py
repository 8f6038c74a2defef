"""Small inputs with large effects: one rule for the empty player id on every
board and the service, and entry data that must be standard JSON."""
from __future__ import annotations

import math

import pytest

from fastrank import Engine, Leaderboard, SQLiteStore, ScoreService, ShardedLeaderboard

T0 = 1_790_000_000


def keyspace(engine):
    """Every key with its content (sorted sets with scores, hashes whole)."""
    state = {}
    for key in engine.keys("*"):
        kind = engine.type(key)
        value = engine.zrange(key, 0, -1, withscores=True) if kind == b"zset" else engine.hgetall(key)
        state[key] = (kind, value)
    return state


@pytest.fixture
def service(tmp_path):
    store = SQLiteStore(tmp_path / "scores.db")
    yield ScoreService(Leaderboard(Engine(), "svc", season="s1"), store)
    store.close()


def error_of(call):
    with pytest.raises(Exception) as info:
        call()
    return type(info.value), str(info.value)


BOARD_CALLS = [
    lambda b, p: b.submit(p, 1, at=T0),
    lambda b, p: b.submit(p, 1, at=T0, with_rank=True),
    lambda b, p: b.submit_many({"ann": 1, p: 2}, at=T0),
    lambda b, p: b.submit_many([(p, 2)], at=T0),
    lambda b, p: b.set_points(p, 3, at=T0),
    lambda b, p: b.set_info(p, {"name": "nobody"}),
    lambda b, p: b.remove(p),
    lambda b, p: b.score(p),
    lambda b, p: b.rank(p),
    lambda b, p: b.rank(p, ranking="competition"),
    lambda b, p: b.around(p, 2),
    lambda b, p: b.friends(p, ["ann"]),
    lambda b, p: b.friends("ann", [p]),
    lambda b, p: b.percentile(p),
    lambda b, p: b.info(p),
]


@pytest.mark.parametrize("kind", ["board", "sharded"])
@pytest.mark.parametrize("call", BOARD_CALLS)
@pytest.mark.parametrize("empty", ["", b""])
def test_the_empty_player_id_is_refused_by_boards_as_by_the_service(service, kind, call, empty):
    engine = Engine()
    board = Leaderboard(engine, "b") if kind == "board" else ShardedLeaderboard(engine, "b", shards=3)
    board.submit("ann", 5, at=T0)
    before = keyspace(engine)
    expected = error_of(lambda: service.submit("m1", "", 1, at=T0))
    assert expected == (ValueError, "a player id cannot be empty")
    assert error_of(lambda: call(board, empty)) == expected
    assert keyspace(engine) == before


def test_the_service_refuses_the_empty_id_in_every_method(service):
    for call in (lambda: service.submit_match("m", {"": 1}), lambda: service.rank(""),
                 lambda: service.tombstone(""), lambda: service.history("")):
        assert error_of(call) == (ValueError, "a player id cannot be empty")
    assert service.store.last_event_id() == 0


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, [1.0, math.nan], {"deep": {"x": -math.inf}}])
@pytest.mark.parametrize("kind", ["board", "sharded"])
def test_set_info_refuses_values_json_cannot_hold(kind, bad):
    engine = Engine()
    board = Leaderboard(engine, "b") if kind == "board" else ShardedLeaderboard(engine, "b", shards=2)
    board.set_info("ann", {"name": "Ann"})
    before = keyspace(engine)
    with pytest.raises(ValueError, match="entry data must be standard JSON: NaN and infinities"):
        board.set_info("ann", {"name": "Ann", "rating": bad})
    assert keyspace(engine) == before
    assert board.info("ann") == {"name": "Ann"}
