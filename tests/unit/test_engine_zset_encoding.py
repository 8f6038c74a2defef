"""Engine zset encodings (listpack vs skiplist, as Redis 7.0 would hold them) and -0.0.

The type of the stored object says the encoding: ``ListpackZSet`` (scores
written as -0.0 are stored 0.0) or a plain ``SortedSet`` (kept as given).
The fast paths (zadd, zincrby) and the generic command path must make the
same choices; tests/compat/test_diff_zset_encoding.py checks the observable
results against Redis.
"""
import math

import pytest


from redis.commands.core import CoreCommands  # noqa: E402

from fastrank._core import SortedSet  # noqa: E402
from fastrank.commands.sortedset import ListpackZSet  # noqa: E402
from fastrank.engine import Engine  # noqa: E402

LONG = "L" * 65


def sign(x):
    return math.copysign(1.0, x)


def kind(r, key):
    return type(r._data[key.encode()])


BOTH = pytest.mark.parametrize("fast", [True, False], ids=["fast", "generic"])


def call(r, fast, name, *args, **kwargs):
    method = getattr(r, name) if fast else getattr(CoreCommands, name).__get__(r)
    return method(*args, **kwargs)


@BOTH
def test_new_key_encoding(fast):
    r = Engine()
    call(r, fast, "zadd", "a", {"E" * 64: 1})
    call(r, fast, "zadd", "b", {LONG: 1, "x": 2})
    call(r, fast, "zadd", "c", {"x": 1, LONG: 2})       # converts inside the command
    call(r, fast, "zincrby", "d", 1.0, LONG)
    call(r, fast, "zincrby", "e", 1.0, "short")
    call(r, fast, "zadd", "s", {"é" * 33: 1})           # 66 UTF-8 bytes
    assert [kind(r, k) for k in "abcdes"] == [ListpackZSet, SortedSet, SortedSet, SortedSet,
                                              ListpackZSet, SortedSet]


@BOTH
def test_negative_zero_by_encoding(fast):
    r = Engine()
    assert call(r, fast, "zadd", "small", {"a": -0.0}) == 1
    assert sign(r.zscore("small", "a")) == 1.0
    assert sign(call(r, fast, "zincrby", "small", -0.0, "b")) == -1.0  # the reply
    assert sign(r.zscore("small", "b")) == 1.0                         # what is stored
    call(r, fast, "zadd", "big", {LONG: 1})
    call(r, fast, "zadd", "big", {"a": -0.0})
    assert sign(call(r, fast, "zincrby", "big", -0.0, "b")) == -1.0
    assert [sign(s) for _, s in r.zrange("big", 0, 1, withscores=True)] == [-1.0, -1.0]
    call(r, fast, "zadd", "big", {"z": 0.0})
    call(r, fast, "zadd", "big", {"z": -0.0})                          # equal: unchanged
    assert sign(r.zscore("big", "z")) == 1.0


@BOTH
def test_conversion_at_129_and_never_back(fast):
    r = Engine()
    call(r, fast, "zadd", "z", {f"m{i}": i for i in range(128)})
    assert kind(r, "z") is ListpackZSet
    call(r, fast, "zadd", "z", {"m0": 5})                # update: no conversion
    call(r, fast, "zincrby", "z", 1.0, "m1")
    assert kind(r, "z") is ListpackZSet
    call(r, fast, "zincrby", "z", 1.0, "new")            # 129th member
    assert kind(r, "z") is SortedSet and r.zcard("z") == 129
    r.zremrangebyrank("z", 0, 120)
    call(r, fast, "zadd", "z", {"neg": -0.0})
    assert kind(r, "z") is SortedSet and sign(r.zscore("z", "neg")) == -1.0
    r.expire("z", 100)
    call(r, fast, "zadd", "y", {"a": 1})
    call(r, fast, "zadd", "y", {LONG: 1}, xx=True)       # not added: stays a listpack
    assert kind(r, "y") is ListpackZSet
    call(r, fast, "zincrby", "y", 2.0, LONG)
    assert kind(r, "y") is SortedSet


def test_conversion_keeps_ttl_and_rename_keeps_encoding():
    r = Engine()
    r.zadd("z", {"a": 1})
    r.expire("z", 100)
    r.zadd("z", {LONG: 1})
    assert kind(r, "z") is SortedSet and r.ttl("z") == 100
    r.rename("z", "y")
    r.zrem("y", LONG)
    r.zadd("y", {"b": -0.0})
    assert sign(r.zscore("y", "b")) == -1.0


def test_store_commands():
    r = Engine()
    r.zadd("src", {LONG: 1, **{f"m{i:03d}": -0.0 for i in range(140)}})
    r.zadd("small", {"a": -0.0, "b": 1})
    assert r.zunionstore("u", ["small"]) == 2 and kind(r, "u") is ListpackZSet
    assert sign(r.zscore("u", "a")) == 1.0
    assert r.zunionstore("w", {"small": -0.0}) == 2 and r.zscore("w", "b") == 0.0
    assert sign(r.zscore("w", "b")) == 1.0
    assert r.zunionstore("u2", ["src"]) == 141 and kind(r, "u2") is SortedSet
    assert sign(r.zscore("u2", "m000")) == -1.0
    assert r.zrangestore("r", "src", 0, 135) == 136 and kind(r, "r") is SortedSet
    assert r.zrangestore("r", "src", 0, 5) == 6 and kind(r, "r") is ListpackZSet
    r.zrangestore("r", "src", "-inf", "+inf", byscore=True)   # listpack, converts at 129
    scores = [sign(s) for _, s in r.zrange("r", 0, -1, withscores=True)]
    assert kind(r, "r") is SortedSet and scores[:128] == [1.0] * 128
    assert scores[128:140] == [-1.0] * 12


def test_fast_zincrby_by_zero_goes_generic_and_agrees():
    r = Engine()
    r.zadd("z", {"a": 1})
    assert r.zincrby("z", 0, "a") == 1.0
    assert r.zincrby("z", 0.0, "n") == 0.0
    assert sign(r.zincrby("z", -0.0, "m")) == -1.0
    assert [sign(s) for _, s in r.zrange("z", 0, 1, withscores=True)] == [1.0, 1.0]
