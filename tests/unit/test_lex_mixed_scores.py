"""Lex ranges over members of different scores walk as Redis walks (issue
item 3; the differential proof against a server is
tests/compat/test_diff_lex_mixed_scores.py)."""
from __future__ import annotations

import fastrank
from fastrank import SortedSet

LONG = "L" * 65  # makes the Engine key a skip list, as in Redis


def test_issue_example_on_the_engine() -> None:
    r = fastrank.Engine()
    r.zadd("lp", {"a": 1, "z": 2, "b": 3})
    r.zadd("sl", {LONG: 0, "a": 1, "z": 2, "b": 3})
    r.zrem("sl", LONG)
    for key in ("lp", "sl"):
        assert r.zrangebylex(key, "-", "[b") == [b"a"]
    assert r.zlexcount("lp", "-", "[b") == 1
    assert r.zrevrangebylex("lp", "[b", "-") == [b"b", b"z", b"a"]   # listpack: from the end
    assert r.zrevrangebylex("sl", "[b", "-") == [b"a"]               # skip list: from the front
    assert r.zremrangebylex("lp", "-", "[b") == 1
    assert r.zrange("lp", 0, -1) == [b"z", b"b"]


def test_core_walks() -> None:
    z = SortedSet()
    z.add_many(["a", "z", "b"], [1, 2, 3])
    assert z.range_by_lex(None, b"b") == [b"a"]
    assert z.range_by_lex(None, b"b", reverse=True) == [b"a"]
    assert z.range_by_lex(b"c", None) == []                 # the last member b < c: empty
    assert z.count_by_lex(b"a", b"a") == 1
    assert z.range_by_lex(None, None, offset=1, count=1) == [b"z"]
    assert z.remove_range_by_lex(b"c", None) == 2           # from z (first >= c) to the end
    assert z.items() == [(b"a", 1.0)]
    z._check()


def test_one_score_keeps_the_fast_path_answers() -> None:
    z = SortedSet()
    z.add_many(list("edcba"), [0] * 5)
    assert z.range_by_lex(b"b", b"d") == [b"b", b"c", b"d"]
    assert z.range_by_lex(b"b", b"d", reverse=True, offset=1) == [b"c", b"b"]
    assert z.count_by_lex(None, b"c", max_exclusive=True) == 2
