"""Pipelines (fastrank.engine.pipeline): results, error reporting and atomicity as
redis-py's against Redis 7.0.

Each test runs on the Engine and on the real server (the ``r`` fixture of
tests/conftest.py); tests/compat/test_diff_pipeline.py compares random
pipelines reply for reply.
"""
import pytest
import redis


def test_transaction_results_and_runtime_errors(r):
    p = r.pipeline()
    p.set("a", 1).incr("a").sadd("s", "x").incr("s").get("a")
    out = p.execute(raise_on_error=False)
    assert out[:3] == [True, 2, 1] and out[4] == b"2"
    assert isinstance(out[3], redis.ResponseError)
    assert str(out[3]).startswith("WRONGTYPE")  # not annotated without raise_on_error


def test_transaction_raises_first_error_after_running_all(r):
    p = r.pipeline()
    p.set("a", 1).incr("s").set("b", 2)
    r.sadd("s", "x")
    with pytest.raises(redis.ResponseError, match=r"Command # 2 \(INCRBY s 1\)"):
        p.execute()
    assert r.get("b") == b"2"


def test_transaction_arity_error_aborts_everything(r):
    p = r.pipeline()
    p.set("a", 1)
    p.execute_command("GET")
    with pytest.raises(redis.ResponseError) as info:
        p.execute()
    assert str(info.value) == ("Command # 2 (GET) of pipeline caused error: "
                               "wrong number of arguments for 'get' command")
    assert r.get("a") is None


def test_plain_pipeline_runs_each(r):
    p = r.pipeline(transaction=False)
    p.set("a", 1)
    p.execute_command("GET")
    p.get("a")
    out = p.execute(raise_on_error=False)
    assert out[0] is True and out[2] == b"1" and isinstance(out[1], redis.ResponseError)


def test_context_manager_and_callbacks(r):
    with r.pipeline() as p:
        p.set("q", "v").mget([]).get("q").hset("h", "a", "b").hgetall("h").expire("q", 10)
        p.ttl("q").exists("q").ping()
        assert len(p) == 9
        assert p.execute() == [True, [], b"v", 1, {b"a": b"b"}, True, 10, 1, True]
        assert len(p) == 0


def test_data_error_runs_nothing(r):
    p = r.pipeline()
    p.set("a", 1).set("b", True)
    with pytest.raises(redis.DataError):
        p.execute()
    assert r.get("a") is None


@pytest.mark.parametrize("transaction", [False, True])
def test_a_queued_bytearray_is_read_when_the_pipeline_runs(r, transaction):
    value = bytearray(b"old")
    p = r.pipeline(transaction=transaction)
    p.set("a", value)
    p.execute_command("SET", "b", value)
    value[:] = b"new"
    p.get("a").get("b")
    assert p.execute() == [True, True, b"new", b"new"]


def test_a_str_redis_py_cannot_encode_fails_at_execute_and_runs_nothing(r):
    p = r.pipeline(transaction=False)
    p.set("a", 1).get("\ud800")
    with pytest.raises(UnicodeEncodeError):
        p.execute()
    assert len(p) == 0 and r.get("a") is None


@pytest.mark.parametrize("transaction", [False, True])
def test_a_command_stack_edited_by_hand_runs_as_edited(r, transaction):
    p = r.pipeline(transaction=transaction)
    p.set("a", 1).set("b", 2).get("a")
    p.command_stack.pop(0)
    p.command_stack.append((("GET", "b"), {}))
    p.command_stack[1] = (("GET", "a"), {})
    assert p.execute() == [True, None, b"2"]
    p.set("c", 3)
    assert p.execute() == [True]  # reused after execute: only what was queued since
