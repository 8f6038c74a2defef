"""SORT and SORT_RO (commands/sort.py): numeric and ALPHA order, BY and GET
patterns, LIMIT, STORE, the errors (nothing stored after one).

Each test taking ``r`` runs on the Engine and on the real server (tests/conftest.py);
tests/compat/commands/test_diff_sort.py covers the option space and random data.
"""
from fastrank import errors as E

from .replies import error_line, error_of


def test_numeric_and_alpha_order(r):
    r.rpush("n", "10", "2", "-1.5", "0x10", "1e1")
    assert r.sort("n") == [b"-1.5", b"2", b"10", b"1e1", b"0x10"]   # ties: byte order
    assert r.sort("n", desc=True, start=1, num=2) == [b"1e1", b"10"]
    r.sadd("w", "pear", "Apple", "fig")
    assert r.sort("w", alpha=True) == [b"Apple", b"fig", b"pear"]
    assert error_of(lambda: r.sort("w")) == "One or more scores can't be converted into double"
    assert r.sort("missing") == []


def test_by_and_get_patterns(r):
    r.rpush("ids", "1", "2", "3")
    r.mset({"w_1": "30", "w_2": "10", "w_3": "20"})
    r.hset("h_2", "name", "two")
    assert r.sort("ids", by="w_*") == [b"2", b"3", b"1"]
    assert r.sort("ids", by="nosort", desc=True) == [b"3", b"2", b"1"]   # list order, reversed
    assert r.sort("ids", by="w_*", get=["#", "w_*", "h_*->name"]) == [
        b"2", b"10", b"two", b"3", b"20", None, b"1", b"30", None]
    assert r.sort_ro("ids", by="w_*", get="#", desc=True) == [b"1", b"3", b"2"]


def test_store_replaces_the_destination(r):
    r.rpush("src", "3", "1", "2")
    r.set("dst", "old", ex=100)
    assert r.sort("src", store="dst") == 3
    assert r.lrange("dst", 0, -1) == [b"1", b"2", b"3"] and r.ttl("dst") == -1
    assert r.sort("missing", store="dst") == 0 and r.exists("dst") == 0


def test_errors_store_nothing(r):
    r.rpush("src", "b", "a")
    r.set("str", "x")
    assert error_line(r, "SORT", "src", "LIMIT", "0") == E.message(E.SYNTAX)
    assert error_line(r, "SORT", "src", "ALPHA", "STORE", "dst", "BOGUS") == E.message(E.SYNTAX)
    assert error_line(r, "SORT", "src", "LIMIT", "x", "1") == E.message(E.NOT_INTEGER)
    assert error_line(r, "SORT", "str") == E.WRONGTYPE
    assert error_line(r, "SORT_RO", "src", "STORE", "dst") == E.message(E.SYNTAX)
    assert r.exists("dst") == 0 and r.lrange("src", 0, -1) == [b"b", b"a"]
