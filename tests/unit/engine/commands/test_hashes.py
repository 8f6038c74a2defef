"""Hash commands (commands/hashes.py).

Each test taking ``r`` runs on the Engine and on the real server (tests/conftest.py).
"""
from fastrank import errors as E

from .replies import error_of


def test_hashes(r):
    assert r.hset("h", mapping={"a": 1, "b": 2}) == 2
    assert r.hget("h", "a") == b"1" and r.hget("h", "zz") is None
    assert r.hmget("h", "a", "zz") == [b"1", None]
    assert r.hgetall("h") == {b"a": b"1", b"b": b"2"} and r.hgetall("nokey") == {}
    assert r.hincrby("h", "b", 5) == 7
    assert error_of(lambda: r.hincrby("h", "n", "x")) == E.message(E.NOT_INTEGER)
    r.hset("h", "t", "abc")
    assert error_of(lambda: r.hincrby("h", "t", 1)) == E.message(E.HASH_NOT_INTEGER)
    assert error_of(lambda: r.hincrbyfloat("h", "t", 1)) == E.message(E.HASH_NOT_FLOAT)
    assert r.hincrbyfloat("h", "f", 0.1) == 0.1 and r.hincrbyfloat("h", "f", 0.2) == 0.3
    assert r.hget("h", "f") == b"0.3"
    assert error_of(lambda: r.hincrbyfloat("h", "f", "inf")) == "value is NaN or Infinity"
    assert r.hexists("h", "a") is True and r.hexists("h", "zz") is False
    assert r.hdel("h", "a", "b", "t", "f", "zz") == 4
    assert r.exists("h") == 0
    assert error_of(lambda: r.execute_command("HSET", "h", "a")) == E.message(E.WRONG_ARITY, "hset")
    r.set("str", "x")
    assert error_of(lambda: r.hset("str", "a", "b")) == E.WRONGTYPE
    assert error_of(lambda: r.hincrby("str", "f", "x")) == E.message(E.NOT_INTEGER)
