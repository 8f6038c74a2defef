"""SORT and SORT_RO (commands/sort.py): client under test vs real Redis 7.0, reply for reply.

SORT over lists, sets (intsets, whose order is defined) and sorted sets:
numeric and ALPHA order, ties, strtod weights, BY patterns (keys and hash
fields, missing weights, the "no sort" pattern), GET (``#``, keys, hash
fields), LIMIT edge cases, ASC/DESC, STORE (list written, TTL dropped, empty
result deletes), the errors. A seeded random stream of SORT calls over
random data ends the file.
"""
from __future__ import annotations

import random
from typing import Any

import pytest

from differential import Pair, steps

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def fill(p: Pair) -> None:
    p.rpush("nums", "3", "1", "2", "10", "2.5", "-4", "1e2", "0x10", " 7", "inf", "")
    p.rpush("words", "pear", "apple", "Banana", "fig", "apple", "b\x00z", "b\x00a")
    p.sadd("ints", 5, 3, 9, 1)
    p.zadd("zs", {"3": 1, "1": 2, "20": 3, "4": 4})
    p.zadd("zwords", {"b": 1, "a": 2, "c": 3})
    for i, w in [("1", "30"), ("2", "20"), ("3", "10"), ("10", "5"), ("2.5", "x"), ("5", "1")]:
        p.set(f"w_{i}", w)
        p.hset(f"h_{i}", mapping={"f": w, "name": f"n{i}"})
    p.set("wa_3", "bb")
    p.set("wa_1", "aa")


@pytest.mark.parametrize("key", ["nums", "ints", "zs", "words", "zwords", "missing"])
def test_sort_orders(pair: Pair, key: str) -> None:
    fill(pair)
    for kwargs in [{}, {"desc": True}, {"alpha": True}, {"alpha": True, "desc": True},
                   {"start": 1, "num": 2}, {"start": 0, "num": 0}, {"start": -5, "num": 2},
                   {"start": 2, "num": -1}, {"start": 100, "num": 3}, {"by": "nosort"},
                   {"by": "nosort", "desc": True}, {"by": "nosort", "start": 1, "num": 2},
                   {"by": "nosort", "desc": True, "start": 1, "num": 2},
                   {"by": "w_*"}, {"by": "w_*", "desc": True}, {"by": "h_*->f"},
                   {"get": "#"}, {"get": ["#", "w_*", "h_*->name", "h_*->nope", "h_*->"]},
                   {"get": ["w_*", "#"], "groups": True}, {"by": "#"}, {"get": "nostar"}]:
        pair.quiet("sort", key, **kwargs)
        ro = {k: v for k, v in kwargs.items() if k in ("start", "num", "by", "get", "desc",
                                                         "alpha")}
        pair.quiet("sort_ro", key, **ro)
    if key in ("nums", "words"):  # ALPHA BY ties (missing weights) keep a list's order
        pair.quiet("sort", key, by="wa_*", alpha=True)
        pair.quiet("sort", key, by="wa_*", alpha=True, desc=True)
    pair.check_keyspace()


def test_sort_store(pair: Pair) -> None:
    fill(pair)
    pair.set("dst", "old")
    pair.expire("dst", 100)
    pair.sort("ints", store="dst")
    pair.lrange("dst", 0, -1)
    pair.ttl("dst")                                         # STORE drops the TTL
    pair.sort("ints", by="nosort", store="dst")             # a set is sorted ALPHA for STORE
    pair.lrange("dst", 0, -1)
    pair.sort("zs", by="nosort", desc=True, store="dst")
    pair.lrange("dst", 0, -1)
    pair.sort("words", alpha=True, store="dst")             # binary order when storing
    pair.lrange("dst", 0, -1)
    pair.sort("ints", get=["nostar", "#"], store="dst")     # nil is stored as ""
    pair.lrange("dst", 0, -1)
    pair.sort("missing", store="dst")                       # empty result deletes dest
    pair.exists("dst")
    pair.sort("nums", store="nums")                         # into its own key
    pair.lrange("nums", 0, -1)
    pair.check_keyspace()


def test_sort_errors(pair: Pair) -> None:
    fill(pair)
    pair.set("str", "v")
    pair.hset("hash", "f", "v")
    for args in (["SORT", "words"], ["SORT", "str"], ["SORT", "hash"], ["SORT_RO", "str"],
                 ["SORT", "nums", "LIMIT", 1], ["SORT", "nums", "LIMIT", "x", 1],
                 ["SORT", "nums", "LIMIT", 0, "y"], ["SORT", "nums", "BY"], ["SORT", "nums", "GET"],
                 ["SORT", "nums", "STORE"], ["SORT_RO", "nums", "STORE", "d"],
                 ["SORT", "nums", "FOO"], ["SORT", "str", "FOO"], ["SORT", "nums", "by", "w_*"],
                 ["SORT", "words", "BY", "nosort"], ["SORT", "words", "STORE", "d"],
                 ["SORT"], ["SORT_RO"], ["sort", "nums", "asc", "desc", "asc", "alpha"],
                 ["SORT", "nums", "LIMIT", 0, 2, "LIMIT", 1, 1]):
        pair.quiet("execute_command", *args)
    pair.rpush("bad", "1", "1 ", "nan")
    pair.quiet("sort", "bad")
    pair.quiet("sort", "bad", store="dst")                  # no store on error
    pair.exists("dst")
    pair.check_keyspace()


def test_sort_weights_as_strtod(pair: Pair) -> None:
    """Out-of-range weights come last: after one, Redis 7.0 rejects later SORTs on
    the same connection until its (stale) errno changes; the engine does not."""
    for i, text in enumerate(["1", "  2", "0x1p3", "-inf", "+5", "1e-2", ".5", "5.",
                              "INFINITY", "1e", "0x", "12abc", "\t3", "-0", "1\x00x",
                              "1e400", "-1e400"]):
        pair.rpush("l", f"e{i}")
        pair.set(f"w_e{i}", text)
        pair.quiet("sort", "l", by="w_*")
        pair.rpush(f"one{i}", text)
        pair.quiet("sort", f"one{i}")
    pair.check_keyspace()


def test_sort_decoded(pair_decoded: Pair) -> None:
    fill(pair_decoded)
    pair_decoded.sort("ints", get=["#", "h_*->name"], groups=True)
    pair_decoded.sort("zwords", alpha=True, desc=True)
    pair_decoded.sort_ro("zs", by="w_*")


def test_sort_random(pair: Pair, seed: int) -> None:
    """Random lists / intsets / zsets with random weights; distinct weights where
    ALPHA BY could tie (the server's order for those ties is its qsort's)."""
    rng = random.Random(seed * 3571 + 2)
    for step in range(steps(80)):
        pair.flushdb()
        members = [str(rng.choice([rng.randint(-50, 50), rng.random() * 10])) for _ in range(12)]
        kind = rng.choice(["list", "set", "zset"])
        if kind == "list":
            pair.rpush("k", *members)
        elif kind == "set":
            pair.sadd("k", *[m for m in members if "." not in m])
        else:
            pair.zadd("k", {m: rng.randint(0, 5) for m in members})
        for i, m in enumerate(dict.fromkeys(members)):
            if rng.random() < 0.8:
                pair.set(f"w_{m}", str(rng.randint(-3, 3)))
                pair.hset(f"h_{m}", "f", f"{i:03d}")
        kwargs: Any = {}
        if rng.random() < 0.5:
            kwargs["by"] = rng.choice(["w_*", "h_*->f", "nosort"])
        if rng.random() < 0.4:
            kwargs["alpha"] = True
            if kwargs.get("by") == "w_*":
                kwargs["by"] = "h_*->f"
            if kind != "list" and kwargs.get("by") == "h_*->f":
                kwargs.pop("by")  # missing weights tie: the server's order is its hash order
        if rng.random() < 0.4:
            kwargs["desc"] = True
        if rng.random() < 0.4 and kwargs.get("by") != "h_*->f":
            kwargs["start"], kwargs["num"] = rng.randint(-1, 6), rng.randint(-1, 6)
        if rng.random() < 0.4:
            kwargs["get"] = rng.sample(["#", "w_*", "h_*->f"], rng.randint(1, 2))
        if rng.random() < 0.3:
            kwargs["store"] = "out"
        pair.quiet("sort", "k", **kwargs)
        if step % 10 == 9:
            pair.check_keyspace()
    pair.check_keyspace()
