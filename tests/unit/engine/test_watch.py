"""WATCH/MULTI/EXEC on the Engine (engine.py and pipeline.py): dirtying by every
write path (fast paths included), no bookkeeping left behind, redis-py's
Pipeline state machine, transaction(). Every test takes ``engine``: they look
at the Engine's own bookkeeping (``_watched``).

tests/compat/test_diff_watch.py checks the same scenarios against Redis.
"""
import threading
import time

import pytest
import redis


def attempt(engine, key, meddle):
    """WATCH key, meddle(r), MULTI SET key mine EXEC: the result or 'watch error'."""
    with engine.pipeline() as pipe:
        pipe.watch(key)
        meddle(engine)
        pipe.multi()
        pipe.set(key, "mine")
        try:
            return pipe.execute()
        except redis.WatchError as e:
            assert str(e) == "Watched variable changed."
            return "watch error"


def test_unconflicted_watch_executes(engine):
    engine.set("w", "1")
    with engine.pipeline() as pipe:
        assert pipe.watch("w") is True
        assert pipe.watching
        current = pipe.get("w")  # immediate mode: a value, not the pipeline
        assert current == b"1"
        pipe.multi()
        assert pipe.set("w", int(current) + 1) is pipe  # queued
        assert pipe.execute() == [True]
        assert not pipe.watching
    assert engine.get("w") == b"2"
    assert engine._watched == {}


@pytest.mark.parametrize("meddle", [
    lambda e: e.set("w", "x"),
    lambda e: e.delete("w"),
    lambda e: e.expire("w", 100),
    lambda e: e.flushdb(),
    lambda e: e.incr("w"),                     # fast path
    lambda e: e.incrby("w", 5),                # fast path
    lambda e: e.append("w", "x"),
    lambda e: e.rename("w", "w2"),
    lambda e: e.getex("w", ex=10),
], ids=["set", "delete", "expire", "flushdb", "incr", "incrby", "append", "rename", "getex"])
def test_string_writes_dirty(engine, meddle):
    engine.set("w", "5")
    assert attempt(engine, "w", meddle) == "watch error"
    assert engine.get("w") != b"mine"
    assert engine._watched == {}


@pytest.mark.parametrize("meddle", [
    lambda e: e.zincrby("z", 1.5, "a"),        # fast path, skiplist and listpack
    lambda e: e.zincrby("z", 1, "new"),
    lambda e: e.zincrby("z", -0.0, "new"),     # generic path (zero amount)
    lambda e: e.zadd("z", {"a": 9}),           # fast path
    lambda e: e.zadd("z", {"b": 1}, nx=True),
    lambda e: e.zadd("z", {"a": 2}, incr=True),
    lambda e: e.zrem("z", "a"),
    lambda e: e.zpopmax("z"),
    lambda e: e.zremrangebyrank("z", 0, 0),
    lambda e: e.zunionstore("z", ["z", "other"]),
    lambda e: e.zrangestore("z", "nokey", 0, -1),   # empty result deletes z
], ids=["zincrby", "zincrby_new", "zincrby_zero_new", "zadd", "zadd_nx_new", "zadd_incr",
        "zrem", "zpopmax", "zremrangebyrank", "zunionstore", "zrangestore_empty"])
@pytest.mark.parametrize("first", ["a", "L" * 65], ids=["listpack", "skiplist"])
def test_zset_writes_dirty(engine, meddle, first):
    engine.zadd("z", {first: 1, "a": 1})
    assert attempt(engine, "z", meddle) == "watch error"


@pytest.mark.parametrize("meddle", [
    lambda e: None,
    lambda e: e.get("w"),
    lambda e: e.set("w", "x", nx=True),
    lambda e: e.delete("nokey"),
    lambda e: e.expire("nokey", 10),
    lambda e: e.persist("w"),
    lambda e: e.set("other", 1),
    lambda e: e.zadd("z", {"a": 1}),           # same score: no change
    lambda e: e.zadd("z", {"a": 5}, nx=True),
    lambda e: e.zincrby("z", 0, "a"),
    lambda e: e.zrem("z", "nope"),
    lambda e: e.hdel("h", "nope"),
    lambda e: e.sadd("s", "x"),
    lambda e: e.srem("s", "nope"),
    lambda e: e.setrange("w", 0, ""),
    lambda e: e.rename("w", "w"),
], ids=["nothing", "get", "set_nx", "del_missing", "expire_missing", "persist_none",
        "other_key", "zadd_same", "zadd_nx", "zincrby_0", "zrem_missing", "hdel_missing",
        "sadd_existing", "srem_missing", "setrange_empty", "rename_same"])
def test_non_modifying_commands_do_not_dirty(engine, meddle):
    engine.set("w", "5")
    engine.zadd("z", {"a": 1})
    engine.hset("h", "f", "v")
    engine.sadd("s", "x")
    with engine.pipeline() as pipe:
        pipe.watch("w", "z", "h", "s")
        meddle(engine)
        pipe.multi()
        pipe.set("done", 1)
        assert pipe.execute() == [True]
    assert engine.get("done") == b"1"
    assert engine._watched == {}


def test_flushdb_dirties_only_existing_watched_keys(engine):
    assert attempt(engine, "missing", lambda e: e.flushdb()) == [True]
    engine.set("w", 1)
    assert attempt(engine, "w", lambda e: e.flushdb()) == "watch error"


def test_watched_key_expiring_before_exec_aborts(engine):
    engine.set("t", "x", px=30)
    with engine.pipeline() as pipe:
        pipe.watch("t")
        time.sleep(0.06)  # nobody touches it: EXEC still sees it expired (Redis 7.0)
        pipe.multi()
        pipe.set("done", 1)
        with pytest.raises(redis.WatchError):
            pipe.execute()
    assert engine.get("done") is None


def test_key_already_expired_at_watch(engine):
    engine.set("t", "x", px=10)
    time.sleep(0.03)
    assert attempt(engine, "t", lambda e: e.exists("t")) == [True]  # its deletion is no change
    engine.set("t", "x", px=10)
    time.sleep(0.03)
    assert attempt(engine, "t", lambda e: e.set("t", "new")) == "watch error"
    engine.set("t", "x", px=10)
    time.sleep(0.03)
    assert attempt(engine, "t", lambda e: e.flushdb()) == [True]


def test_own_immediate_write_and_unwatch(engine):
    with engine.pipeline() as pipe:
        pipe.watch("w")
        assert pipe.set("w", 1) is True  # immediate
        pipe.multi()
        pipe.get("w")
        with pytest.raises(redis.WatchError):
            pipe.execute()
    with engine.pipeline() as pipe:
        pipe.watch("w")
        engine.set("w", 2)
        assert pipe.unwatch() is True
        assert not pipe.watching and engine._watched == {}
        pipe.multi()
        pipe.get("w")
        assert pipe.execute() == [b"2"]


def test_reset_and_context_exit_unwatch(engine):
    pipe = engine.pipeline()
    pipe.watch("a", "b", "a")
    assert set(engine._watched) == {b"a", b"b"} and len(engine._watched[b"a"]) == 1
    pipe.reset()
    assert engine._watched == {}
    with engine.pipeline() as pipe:
        pipe.watch("a")
        other = engine.pipeline()
        other.watch("a")
        assert len(engine._watched[b"a"]) == 2
        engine.set("a", 1)  # dirties both, and unwatches them at once
        assert engine._watched == {}
        other.reset()
    assert engine._watched == {}


def test_client_side_errors(engine):
    with engine.pipeline() as pipe:
        pipe.multi()
        with pytest.raises(redis.RedisError, match="Cannot issue a WATCH after a MULTI"):
            pipe.watch("w")
    with engine.pipeline() as pipe:
        with pytest.raises(redis.ResponseError, match="wrong number of arguments for 'watch'"):
            pipe.watch()
        assert not pipe.watching
        pipe.watch("w")
        with pytest.raises(redis.ResponseError, match="^EXEC without MULTI$"):
            pipe.execute_command("EXEC")
        with pytest.raises(redis.ResponseError, match="^DISCARD without MULTI$"):
            pipe.discard()


def test_watch_inside_multi_is_an_error_reply_not_an_abort(engine):
    with engine.pipeline() as pipe:
        pipe.multi()
        pipe.set("w", 1)
        pipe.execute_command("WATCH", "w")
        pipe.get("w")
        out = pipe.execute(raise_on_error=False)
    assert out[0] is True and out[2] == b"1"
    assert isinstance(out[1], redis.ResponseError)
    assert str(out[1]).endswith("WATCH inside MULTI is not allowed")


def test_unwatch_queued_inside_multi(engine):
    with engine.pipeline() as pipe:
        pipe.watch("w")
        pipe.multi()
        pipe.unwatch()            # queued: runs inside EXEC, answers OK
        pipe.set("w", 1)
        assert pipe.execute() == [True, True]


def test_plain_engine_watch_commands(engine):
    assert engine.execute_command("WATCH", "k") is True  # bool_ok callback, as redis-py
    assert engine.execute_command("UNWATCH") is True
    with pytest.warns(DeprecationWarning):
        engine.watch("k")
    with pytest.warns(DeprecationWarning):
        engine.unwatch()


def test_multi_outside_a_transaction_pipeline_is_refused(engine):
    """Redis would leave the connection answering QUEUED; the Engine keeps no
    such state outside a transaction pipeline, so it refuses and runs on."""
    refused = "runs MULTI only as a transaction pipeline"
    with pytest.raises(redis.ResponseError, match=refused):
        engine.execute_command("MULTI")
    assert engine.set("k", 1) is True and engine.get("k") == b"1"
    with engine.pipeline(transaction=False) as pipe:
        out = pipe.execute_command("MULTI").set("k", 2).execute(raise_on_error=False)
    assert isinstance(out[0], redis.ResponseError) and refused in str(out[0])
    assert out[1] is True and engine.get("k") == b"2"
    with engine.pipeline() as pipe:
        pipe.watch("k")
        with pytest.raises(redis.ResponseError, match=refused):
            pipe.execute_command("MULTI")


def test_transaction_helper(engine):
    engine.set("counter", 1)
    calls = []

    def body(pipe):
        value = int(pipe.get("counter"))
        calls.append(value)
        if len(calls) == 1:
            engine.incr("counter")  # a concurrent writer: the first try fails
        pipe.multi()
        pipe.set("counter", value * 10)
        return value

    assert engine.transaction(body, "counter") == [True]
    assert calls == [1, 2] and engine.get("counter") == b"20"
    assert engine.transaction(body, "counter", value_from_callable=True, watch_delay=0.001) == 20
    assert engine._watched == {}


def test_threads_increment_with_optimistic_locking(engine):
    engine.set("n", 0)

    def worker():
        for _ in range(200):
            def body(pipe):
                value = int(pipe.get("n"))
                pipe.multi()
                pipe.set("n", value + 1)
            engine.transaction(body, "n")

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert engine.get("n") == b"800"
    assert engine._watched == {}
