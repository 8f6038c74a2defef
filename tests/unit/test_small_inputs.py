"""Small inputs with large effects: one rule for the empty player id on every
board and the service, entry data that must be standard JSON, and the
Engine's cap on the replies of a random sample with repetitions."""
from __future__ import annotations

import math

import pytest
import redis

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


# -- random replies with repetitions ---------------------------------------------------------


def test_zrandmember_with_a_huge_negative_count_is_refused_with_nothing_built():
    engine = Engine()
    engine.zadd("z", {"a": 1, "b": 2})
    assert engine.random_reply_limit == 1_000_000
    with pytest.raises(redis.ResponseError, match="random_reply_limit"):
        engine.zrandmember("z", -1_000_000_000)
    with pytest.raises(redis.ResponseError, match="random_reply_limit"):
        engine.zrandmember("z", -1_000_001, withscores=True)
    assert len(engine.zrandmember("z", -1_000_000)) == 1_000_000   # the limit itself is allowed
    assert engine.zrange("z", 0, -1, withscores=True) == [(b"a", 1.0), (b"b", 2.0)]


def test_srandmember_and_hrandfield_are_held_to_the_same_limit():
    engine = Engine()
    engine.sadd("s", "a")
    engine.hset("h", "f", "v")
    engine.random_reply_limit = 3
    assert engine.srandmember("s", -3) == [b"a"] * 3
    assert engine.hrandfield("h", -3, withvalues=True) == [b"f", b"v"] * 3
    for draw in (lambda: engine.srandmember("s", -4), lambda: engine.hrandfield("h", -4),
                 lambda: engine.hrandfield("h", -4, withvalues=True)):
        with pytest.raises(redis.ResponseError, match=r"count -4 asks for 4 entries"):
            draw()
    assert engine.hrandfield("missing", -10) == [] and engine.srandmember("missing", -10) == []


def test_the_random_reply_limit_is_configurable_and_checked():
    engine = Engine()
    engine.zadd("z", {"a": 1})
    engine.random_reply_limit = 3
    assert engine.zrandmember("z", -3) == [b"a"] * 3
    with pytest.raises(redis.ResponseError, match=r"count -4 asks for 4 entries, more than the Engine's "
                                                  r"random_reply_limit \(3\)"):
        engine.zrandmember("z", -4)
    assert engine.zrandmember("z", 10) == [b"a"]          # a positive count is bounded by the set
    assert engine.zrandmember("missing", -10) == []       # no key: an empty reply, as Redis gives
    with pytest.raises(redis.ResponseError, match="random_reply_limit"):  # also inside a pipeline
        engine.pipeline().zrandmember("z", -4).execute()
    for bad in (0, -1, 1.5, True, "10"):
        with pytest.raises((TypeError, ValueError), match="random_reply_limit must be an int >= 1 or None"):
            engine.random_reply_limit = bad
    assert engine.random_reply_limit == 3
    engine.random_reply_limit = None                       # None: no limit (as Redis)
    assert len(engine.zrandmember("z", -5)) == 5


def test_the_limit_holds_in_scripts():
    engine = Engine()
    engine.zadd("z", {"a": 1})
    engine.random_reply_limit = 2
    with pytest.raises(redis.ResponseError, match="random_reply_limit"):
        engine.eval("return redis.call('ZRANDMEMBER', KEYS[1], -3)", 1, "z")
