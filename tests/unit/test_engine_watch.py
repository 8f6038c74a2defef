"""Engine WATCH/MULTI/EXEC: dirtying by every write path (fast paths included),
no bookkeeping left behind, redis-py's Pipeline state machine, transaction().

tests/compat/test_diff_watch.py checks the same scenarios against Redis.
"""
import threading
import time

import pytest


import redis  # noqa: E402

from fastrank.engine import Engine  # noqa: E402


@pytest.fixture
def r():
    return Engine()


def attempt(r, key, meddle):
    """WATCH key, meddle(r), MULTI SET key mine EXEC: the result or 'watch error'."""
    with r.pipeline() as pipe:
        pipe.watch(key)
        meddle(r)
        pipe.multi()
        pipe.set(key, "mine")
        try:
            return pipe.execute()
        except redis.WatchError as e:
            assert str(e) == "Watched variable changed."
            return "watch error"


def test_unconflicted_watch_executes(r):
    r.set("w", "1")
    with r.pipeline() as pipe:
        assert pipe.watch("w") is True
        assert pipe.watching
        current = pipe.get("w")  # immediate mode: a value, not the pipeline
        assert current == b"1"
        pipe.multi()
        assert pipe.set("w", int(current) + 1) is pipe  # queued
        assert pipe.execute() == [True]
        assert not pipe.watching
    assert r.get("w") == b"2"
    assert r._watched == {}


@pytest.mark.parametrize("meddle", [
    lambda r: r.set("w", "x"),
    lambda r: r.delete("w"),
    lambda r: r.expire("w", 100),
    lambda r: r.flushdb(),
    lambda r: r.incr("w"),                     # fast path
    lambda r: r.incrby("w", 5),                # fast path
    lambda r: r.append("w", "x"),
    lambda r: r.rename("w", "w2"),
    lambda r: r.getex("w", ex=10),
], ids=["set", "delete", "expire", "flushdb", "incr", "incrby", "append", "rename", "getex"])
def test_string_writes_dirty(r, meddle):
    r.set("w", "5")
    assert attempt(r, "w", meddle) == "watch error"
    assert r.get("w") != b"mine"
    assert r._watched == {}


@pytest.mark.parametrize("meddle", [
    lambda r: r.zincrby("z", 1.5, "a"),        # fast path, skiplist and listpack
    lambda r: r.zincrby("z", 1, "new"),
    lambda r: r.zincrby("z", -0.0, "new"),     # generic path (zero amount)
    lambda r: r.zadd("z", {"a": 9}),           # fast path
    lambda r: r.zadd("z", {"b": 1}, nx=True),
    lambda r: r.zadd("z", {"a": 2}, incr=True),
    lambda r: r.zrem("z", "a"),
    lambda r: r.zpopmax("z"),
    lambda r: r.zremrangebyrank("z", 0, 0),
    lambda r: r.zunionstore("z", ["z", "other"]),
    lambda r: r.zrangestore("z", "nokey", 0, -1),   # empty result deletes z
], ids=["zincrby", "zincrby_new", "zincrby_zero_new", "zadd", "zadd_nx_new", "zadd_incr",
        "zrem", "zpopmax", "zremrangebyrank", "zunionstore", "zrangestore_empty"])
@pytest.mark.parametrize("first", ["a", "L" * 65], ids=["listpack", "skiplist"])
def test_zset_writes_dirty(r, meddle, first):
    r.zadd("z", {first: 1, "a": 1})
    assert attempt(r, "z", meddle) == "watch error"


@pytest.mark.parametrize("meddle", [
    lambda r: None,
    lambda r: r.get("w"),
    lambda r: r.set("w", "x", nx=True),
    lambda r: r.delete("nokey"),
    lambda r: r.expire("nokey", 10),
    lambda r: r.persist("w"),
    lambda r: r.set("other", 1),
    lambda r: r.zadd("z", {"a": 1}),           # same score: no change
    lambda r: r.zadd("z", {"a": 5}, nx=True),
    lambda r: r.zincrby("z", 0, "a"),
    lambda r: r.zrem("z", "nope"),
    lambda r: r.hdel("h", "nope"),
    lambda r: r.sadd("s", "x"),
    lambda r: r.srem("s", "nope"),
    lambda r: r.setrange("w", 0, ""),
    lambda r: r.rename("w", "w"),
], ids=["nothing", "get", "set_nx", "del_missing", "expire_missing", "persist_none",
        "other_key", "zadd_same", "zadd_nx", "zincrby_0", "zrem_missing", "hdel_missing",
        "sadd_existing", "srem_missing", "setrange_empty", "rename_same"])
def test_non_modifying_commands_do_not_dirty(r, meddle):
    r.set("w", "5")
    r.zadd("z", {"a": 1})
    r.hset("h", "f", "v")
    r.sadd("s", "x")
    with r.pipeline() as pipe:
        pipe.watch("w", "z", "h", "s")
        meddle(r)
        pipe.multi()
        pipe.set("done", 1)
        assert pipe.execute() == [True]
    assert r.get("done") == b"1"
    assert r._watched == {}


def test_flushdb_dirties_only_existing_watched_keys(r):
    assert attempt(r, "missing", lambda r: r.flushdb()) == [True]
    r.set("w", 1)
    assert attempt(r, "w", lambda r: r.flushdb()) == "watch error"


def test_watched_key_expiring_before_exec_aborts(r):
    r.set("t", "x", px=30)
    with r.pipeline() as pipe:
        pipe.watch("t")
        time.sleep(0.06)  # nobody touches it: EXEC still sees it expired (Redis 7.0)
        pipe.multi()
        pipe.set("done", 1)
        with pytest.raises(redis.WatchError):
            pipe.execute()
    assert r.get("done") is None


def test_key_already_expired_at_watch(r):
    r.set("t", "x", px=10)
    time.sleep(0.03)
    assert attempt(r, "t", lambda r: r.exists("t")) == [True]  # its deletion is no change
    r.set("t", "x", px=10)
    time.sleep(0.03)
    assert attempt(r, "t", lambda r: r.set("t", "new")) == "watch error"
    r.set("t", "x", px=10)
    time.sleep(0.03)
    assert attempt(r, "t", lambda r: r.flushdb()) == [True]


def test_own_immediate_write_and_unwatch(r):
    with r.pipeline() as pipe:
        pipe.watch("w")
        assert pipe.set("w", 1) is True  # immediate
        pipe.multi()
        pipe.get("w")
        with pytest.raises(redis.WatchError):
            pipe.execute()
    with r.pipeline() as pipe:
        pipe.watch("w")
        r.set("w", 2)
        assert pipe.unwatch() is True
        assert not pipe.watching and r._watched == {}
        pipe.multi()
        pipe.get("w")
        assert pipe.execute() == [b"2"]


def test_reset_and_context_exit_unwatch(r):
    pipe = r.pipeline()
    pipe.watch("a", "b", "a")
    assert set(r._watched) == {b"a", b"b"} and len(r._watched[b"a"]) == 1
    pipe.reset()
    assert r._watched == {}
    with r.pipeline() as pipe:
        pipe.watch("a")
        other = r.pipeline()
        other.watch("a")
        assert len(r._watched[b"a"]) == 2
        r.set("a", 1)  # dirties both, and unwatches them at once
        assert r._watched == {}
        other.reset()
    assert r._watched == {}


def test_client_side_errors(r):
    with r.pipeline() as pipe:
        pipe.multi()
        with pytest.raises(redis.RedisError, match="Cannot issue a WATCH after a MULTI"):
            pipe.watch("w")
    with r.pipeline() as pipe:
        with pytest.raises(redis.ResponseError, match="wrong number of arguments for 'watch'"):
            pipe.watch()
        assert not pipe.watching
        pipe.watch("w")
        with pytest.raises(redis.ResponseError, match="^EXEC without MULTI$"):
            pipe.execute_command("EXEC")
        with pytest.raises(redis.ResponseError, match="^DISCARD without MULTI$"):
            pipe.discard()


def test_watch_inside_multi_is_an_error_reply_not_an_abort(r):
    with r.pipeline() as pipe:
        pipe.multi()
        pipe.set("w", 1)
        pipe.execute_command("WATCH", "w")
        pipe.get("w")
        out = pipe.execute(raise_on_error=False)
    assert out[0] is True and out[2] == b"1"
    assert isinstance(out[1], redis.ResponseError)
    assert str(out[1]).endswith("WATCH inside MULTI is not allowed")


def test_unwatch_queued_inside_multi(r):
    with r.pipeline() as pipe:
        pipe.watch("w")
        pipe.multi()
        pipe.unwatch()            # queued: runs inside EXEC, answers OK
        pipe.set("w", 1)
        assert pipe.execute() == [True, True]


def test_plain_engine_watch_commands(r):
    assert r.execute_command("WATCH", "k") is True  # bool_ok callback, as redis-py
    assert r.execute_command("UNWATCH") is True
    with pytest.warns(DeprecationWarning):
        r.watch("k")
    with pytest.warns(DeprecationWarning):
        r.unwatch()


def test_multi_outside_a_transaction_pipeline_is_refused(r):
    """Redis would leave the connection answering QUEUED; the Engine keeps no
    such state outside a transaction pipeline, so it refuses and runs on."""
    refused = "runs MULTI only as a transaction pipeline"
    with pytest.raises(redis.ResponseError, match=refused):
        r.execute_command("MULTI")
    assert r.set("k", 1) is True and r.get("k") == b"1"
    with r.pipeline(transaction=False) as pipe:
        out = pipe.execute_command("MULTI").set("k", 2).execute(raise_on_error=False)
    assert isinstance(out[0], redis.ResponseError) and refused in str(out[0])
    assert out[1] is True and r.get("k") == b"2"
    with r.pipeline() as pipe:
        pipe.watch("k")
        with pytest.raises(redis.ResponseError, match=refused):
            pipe.execute_command("MULTI")


def test_transaction_helper(r):
    r.set("counter", 1)
    calls = []

    def body(pipe):
        value = int(pipe.get("counter"))
        calls.append(value)
        if len(calls) == 1:
            r.incr("counter")  # a concurrent writer: the first try fails
        pipe.multi()
        pipe.set("counter", value * 10)
        return value

    assert r.transaction(body, "counter") == [True]
    assert calls == [1, 2] and r.get("counter") == b"20"
    assert r.transaction(body, "counter", value_from_callable=True, watch_delay=0.001) == 20
    assert r._watched == {}


def test_threads_increment_with_optimistic_locking(r):
    r.set("n", 0)

    def worker():
        for _ in range(200):
            def body(pipe):
                value = int(pipe.get("n"))
                pipe.multi()
                pipe.set("n", value + 1)
            r.transaction(body, "n")

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert r.get("n") == b"800"
    assert r._watched == {}
