"""Sorted-set commands (commands/sortedset.py).

- ZADD of many members at once (the bulk insert into a skip list) answers as
  Redis: these tests take ``r`` and run on the Engine and on the real server.
- Encodings (listpack vs skiplist, as Redis 7.0 would hold them) and -0.0:
  the type of the stored object says the encoding, ``ListpackZSet`` (scores
  written as -0.0 are stored 0.0) or a plain ``SortedSet`` (kept as given).
  The fast paths (zadd, zincrby) and the generic command path must make the
  same choices; tests/compat/commands/test_diff_sortedset.py checks the
  observable results against Redis.
- Lex ranges over members of different scores walk as Redis walks (the
  differential proof is in the same compat file).
"""
from __future__ import annotations

import math
import random

import pytest
import redis
from redis.commands.core import CoreCommands

from fastrank._core import SortedSet
from fastrank.engine.commands.sortedset import ListpackZSet

LONG = "L" * 65  # a member longer than a listpack holds: the key becomes a skip list


# -- ZADD of many members ------------------------------------------------------

def _mapping(n, seed, zero=False):
    rnd = random.Random(seed)
    out = {f"m{i}": rnd.uniform(-1e6, 1e6) for i in range(n)}
    out[b"raw\x00bytes"] = 1.5
    if zero:
        out["z"] = 0.0
    return out


@pytest.mark.parametrize("n", [20, 127, 128, 129, 1000])
def test_new_and_existing_keys(r, n):
    first = _mapping(n, 1)
    assert r.zadd("k", first) == len(first)
    again = _mapping(n + 50, 2)                     # updates the first n, adds 50
    assert r.zadd("k", again) == 50
    assert r.zrange("k", 0, -1, withscores=True) == sorted(
        ((m.encode() if isinstance(m, str) else m, s) for m, s in {**first, **again}.items()),
        key=lambda p: (p[1], p[0]))
    assert r.zcard("k") == len({**first, **again})


def test_zero_scores_wrong_types_and_odd_values_in_a_big_zadd(r):
    r.zadd("k", _mapping(200, 3))
    assert r.zadd("k", _mapping(200, 4, zero=True)) == 1    # a zero score (maybe -0.0)
    assert r.zscore("k", "z") == 0.0
    r.set("s", "x")
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        r.zadd("s", _mapping(200, 5))
    with pytest.raises(redis.DataError):
        r.zadd("k", {**_mapping(200, 6), "b": True})
    assert r.zadd("k", {**_mapping(200, 7), "big": 10**20}) == 1
    assert r.zscore("k", "big") == 1e20


def test_a_watched_key_still_fails_its_transaction(engine):
    engine.zadd("k", _mapping(200, 8))
    with engine.pipeline() as pipe:
        pipe.watch("k")
        engine.zadd("k", _mapping(300, 9))
        pipe.multi()
        pipe.zcard("k")
        with pytest.raises(redis.WatchError):
            pipe.execute()


# -- encodings and -0.0 ---------------------------------------------------------

def sign(x):
    return math.copysign(1.0, x)


def kind(engine, key):
    return type(engine._data[key.encode()])


BOTH = pytest.mark.parametrize("fast", [True, False], ids=["fast", "generic"])


def call(engine, fast, name, *args, **kwargs):
    method = getattr(engine, name) if fast else getattr(CoreCommands, name).__get__(engine)
    return method(*args, **kwargs)


@BOTH
def test_new_key_encoding(fast, engine):
    call(engine, fast, "zadd", "a", {"E" * 64: 1})
    call(engine, fast, "zadd", "b", {LONG: 1, "x": 2})
    call(engine, fast, "zadd", "c", {"x": 1, LONG: 2})       # converts inside the command
    call(engine, fast, "zincrby", "d", 1.0, LONG)
    call(engine, fast, "zincrby", "e", 1.0, "short")
    call(engine, fast, "zadd", "s", {"é" * 33: 1})           # 66 UTF-8 bytes
    assert [kind(engine, k) for k in "abcdes"] == [ListpackZSet, SortedSet, SortedSet,
                                                   SortedSet, ListpackZSet, SortedSet]


@BOTH
def test_negative_zero_by_encoding(fast, engine):
    assert call(engine, fast, "zadd", "small", {"a": -0.0}) == 1
    assert sign(engine.zscore("small", "a")) == 1.0
    assert sign(call(engine, fast, "zincrby", "small", -0.0, "b")) == -1.0  # the reply
    assert sign(engine.zscore("small", "b")) == 1.0                         # what is stored
    call(engine, fast, "zadd", "big", {LONG: 1})
    call(engine, fast, "zadd", "big", {"a": -0.0})
    assert sign(call(engine, fast, "zincrby", "big", -0.0, "b")) == -1.0
    assert [sign(s) for _, s in engine.zrange("big", 0, 1, withscores=True)] == [-1.0, -1.0]
    call(engine, fast, "zadd", "big", {"z": 0.0})
    call(engine, fast, "zadd", "big", {"z": -0.0})                          # equal: unchanged
    assert sign(engine.zscore("big", "z")) == 1.0


@BOTH
def test_conversion_at_129_and_never_back(fast, engine):
    call(engine, fast, "zadd", "z", {f"m{i}": i for i in range(128)})
    assert kind(engine, "z") is ListpackZSet
    call(engine, fast, "zadd", "z", {"m0": 5})                # update: no conversion
    call(engine, fast, "zincrby", "z", 1.0, "m1")
    assert kind(engine, "z") is ListpackZSet
    call(engine, fast, "zincrby", "z", 1.0, "new")            # 129th member
    assert kind(engine, "z") is SortedSet and engine.zcard("z") == 129
    engine.zremrangebyrank("z", 0, 120)
    call(engine, fast, "zadd", "z", {"neg": -0.0})
    assert kind(engine, "z") is SortedSet and sign(engine.zscore("z", "neg")) == -1.0
    engine.expire("z", 100)
    call(engine, fast, "zadd", "y", {"a": 1})
    call(engine, fast, "zadd", "y", {LONG: 1}, xx=True)       # not added: stays a listpack
    assert kind(engine, "y") is ListpackZSet
    call(engine, fast, "zincrby", "y", 2.0, LONG)
    assert kind(engine, "y") is SortedSet


def test_conversion_keeps_ttl_and_rename_keeps_encoding(engine):
    engine.zadd("z", {"a": 1})
    engine.expire("z", 100)
    engine.zadd("z", {LONG: 1})
    assert kind(engine, "z") is SortedSet and engine.ttl("z") == 100
    engine.rename("z", "y")
    engine.zrem("y", LONG)
    engine.zadd("y", {"b": -0.0})
    assert sign(engine.zscore("y", "b")) == -1.0


def test_store_commands(engine):
    engine.zadd("src", {LONG: 1, **{f"m{i:03d}": -0.0 for i in range(140)}})
    engine.zadd("small", {"a": -0.0, "b": 1})
    assert engine.zunionstore("u", ["small"]) == 2 and kind(engine, "u") is ListpackZSet
    assert sign(engine.zscore("u", "a")) == 1.0
    assert engine.zunionstore("w", {"small": -0.0}) == 2 and engine.zscore("w", "b") == 0.0
    assert sign(engine.zscore("w", "b")) == 1.0
    assert engine.zunionstore("u2", ["src"]) == 141 and kind(engine, "u2") is SortedSet
    assert sign(engine.zscore("u2", "m000")) == -1.0
    assert engine.zrangestore("r", "src", 0, 135) == 136 and kind(engine, "r") is SortedSet
    assert engine.zrangestore("r", "src", 0, 5) == 6 and kind(engine, "r") is ListpackZSet
    engine.zrangestore("r", "src", "-inf", "+inf", byscore=True)   # listpack, converts at 129
    scores = [sign(s) for _, s in engine.zrange("r", 0, -1, withscores=True)]
    assert kind(engine, "r") is SortedSet and scores[:128] == [1.0] * 128
    assert scores[128:140] == [-1.0] * 12


def test_fast_zincrby_by_zero_goes_generic_and_agrees(engine):
    engine.zadd("z", {"a": 1})
    assert engine.zincrby("z", 0, "a") == 1.0
    assert engine.zincrby("z", 0.0, "n") == 0.0
    assert sign(engine.zincrby("z", -0.0, "m")) == -1.0
    assert [sign(s) for _, s in engine.zrange("z", 0, 1, withscores=True)] == [1.0, 1.0]


# -- lex ranges over mixed scores ------------------------------------------------

def test_issue_example_on_the_engine(engine):
    engine.zadd("lp", {"a": 1, "z": 2, "b": 3})
    engine.zadd("sl", {LONG: 0, "a": 1, "z": 2, "b": 3})
    engine.zrem("sl", LONG)
    for key in ("lp", "sl"):
        assert engine.zrangebylex(key, "-", "[b") == [b"a"]
    assert engine.zlexcount("lp", "-", "[b") == 1
    assert engine.zrevrangebylex("lp", "[b", "-") == [b"b", b"z", b"a"]  # listpack: from the end
    assert engine.zrevrangebylex("sl", "[b", "-") == [b"a"]  # skip list: from the front
    assert engine.zremrangebylex("lp", "-", "[b") == 1
    assert engine.zrange("lp", 0, -1) == [b"z", b"b"]
