"""redis-py's response callbacks on the Engine: a callback set by the user
is handed the reply in the shape the server sends it, for every command,
including those the Engine answers through a compiled front door (ZSCORE,
ZINCRBY, ZRANK, ZRANGE, INCRBY, HINCRBY, HSET, ZADD...). Each test runs on
the Engine and on the real server (the ``r`` fixture) with the same
expectation."""
from __future__ import annotations

import pytest

#: (the method call, the command word whose callback it reaches)
CALLS = [
    (lambda c: c.zscore("z", "a"), "ZSCORE"),
    (lambda c: c.zincrby("z", 2, "a"), "ZINCRBY"),
    (lambda c: c.zrank("z", "a"), "ZRANK"),
    (lambda c: c.zrevrank("z", "a"), "ZREVRANK"),
    (lambda c: c.zrange("z", 0, -1, withscores=True), "ZRANGE"),
    (lambda c: c.zrevrange("z", 0, -1), "ZREVRANGE"),
    (lambda c: c.incrby("n", 5), "INCRBY"),
    (lambda c: c.incr("n"), "INCRBY"),
    (lambda c: c.hincrby("h", "f", 3), "HINCRBY"),
    (lambda c: c.hset("h", "g", "v"), "HSET"),
    (lambda c: c.hset("h", mapping={"x": "1", "y": "2"}), "HSET"),
    (lambda c: c.zadd("z", {"c": 3}), "ZADD"),
    (lambda c: c.zadd("z", {f"m{i}": i for i in range(40)}), "ZADD"),
    (lambda c: c.zcount("z", 0, 10), "ZCOUNT"),
    (lambda c: c.zrangebyscore("z", 0, 10, withscores=True), "ZRANGEBYSCORE"),
    (lambda c: c.get("s"), "GET"),
]


def _fill(c) -> None:
    c.zadd("z", {"a": 1.5, "b": 2})
    c.set("n", 10)
    c.set("s", "text")
    c.hset("h", "f", 1)


def _handed_and_result(client, call, word):
    _fill(client)
    handed = []

    def callback(response, **options):
        handed.append(response)
        return ("wrapped", response)

    client.set_response_callback(word, callback)
    return handed, call(client)


@pytest.mark.redis
@pytest.mark.parametrize("call,word", CALLS, ids=[f"{w}-{i}" for i, (_, w) in enumerate(CALLS)])
def test_a_user_callback_is_handed_what_the_server_sends(engine, redis_client, call, word):
    ours = _handed_and_result(engine, call, word)
    theirs = _handed_and_result(redis_client, call, word)
    assert len(theirs[0]) == 1 and theirs[1] == ("wrapped", theirs[0][0])
    assert ours == theirs


@pytest.mark.redis
@pytest.mark.parametrize("call,word", CALLS, ids=[f"{w}-{i}" for i, (_, w) in enumerate(CALLS)])
def test_no_callbacks_at_all_gives_the_raw_replies(engine, redis_client, call, word):
    results = []
    for client in (engine, redis_client):
        _fill(client)
        client.response_callbacks = {}
        results.append(call(client))
    assert results[0] == results[1]


def test_the_front_doors_answer_again_on_a_new_engine_and_callbacks_of_other_commands_keep_them(engine):
    """A callback of a command no front door answers leaves the front doors
    on; a new Engine starts with redis-py's callbacks."""
    import fastrank

    engine.set_response_callback("PING", lambda response, **options: response)
    assert engine._fast.stock_callbacks
    engine.set_response_callback("zscore", lambda response, **options: response)
    assert not engine._fast.stock_callbacks
    assert fastrank.Engine()._fast.stock_callbacks
