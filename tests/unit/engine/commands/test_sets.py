"""Set commands (commands/sets.py).

Each test taking ``r`` runs on the Engine and on the real server (tests/conftest.py).
"""
from fastrank import errors as E

from .replies import error_of


def test_sets(r):
    assert r.sadd("s", "a", "b", "a") == 2
    assert r.smembers("s") == {b"a", b"b"} and r.smembers("nokey") == set()
    assert r.sismember("s", "a") == 1 and r.smismember("s", ["a", "zz"]) == [1, 0]
    assert r.scard("s") == 2 and r.srem("s", "a", "zz") == 1
    assert r.srem("s", "b") == 1 and r.exists("s") == 0
    r.set("str", 1)
    assert error_of(lambda: r.sadd("str", "a")) == E.WRONGTYPE
