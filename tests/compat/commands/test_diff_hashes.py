"""Hash commands (commands/hashes.py): client under test vs real Redis 7.0.

HSCAN replies are deterministic for a small hash: one batch, cursor 0, in
listpack order (insertion order).
"""
from __future__ import annotations

import pytest

from differential import Pair

pytestmark = pytest.mark.filterwarnings("ignore:.*:DeprecationWarning")  # HMSET


def test_hash_basics(pair: Pair) -> None:
    pair.hset("h", "a", 1)
    pair.hset("h", mapping={"b": 2.5, "c": b"\x80"})
    pair.hset("h", "d", "4", mapping={"e": 5}, items=["f", 6])
    pair.quiet("hset", "h")
    pair.hget("h", "a")
    pair.hmget("h", ["a", "nope", "c"])
    pair.quiet("hmget", "h", [])
    pair.hgetall("h")
    pair.hkeys("h")
    pair.hvals("h")
    pair.hlen("h")
    pair.hexists("h", "a")
    pair.hexists("h", "zz")
    pair.hincrby("h", "a", 10)
    pair.quiet("hincrby", "h", "b", 1)
    pair.hincrbyfloat("h", "b", 0.1)
    pair.quiet("hincrbyfloat", "h", "c", 1)
    pair.quiet("hincrbyfloat", "h", "a", "nan")
    pair.hdel("h", "a", "a", "nope")
    pair.hdel("h", "b", "c", "d", "e", "f")
    pair.exists("h")
    pair.hgetall("nokey")


def test_hmset(pair: Pair) -> None:
    pair.hmset("h", {"a": 1, "b": "two", "c": b"\x00\xff"})
    pair.hmset("h", {"a": "one", "d": 4.5})
    pair.hgetall("h")
    pair.quiet("hmset", "h", {})                            # redis-py DataError
    pair.quiet("execute_command", "HMSET", "h", "a")        # odd field/value count
    pair.set("s", "v")
    pair.quiet("hmset", "s", {"a": 1})                      # WRONGTYPE


def test_hscan(pair: Pair) -> None:
    pair.hset("h", mapping={"name": "x", "n1": "1", "n2": "2", "other": "3", "\x80": "4"})
    pair.hscan("h")
    pair.hscan("h", 0, match="n*")
    pair.hscan("h", 0, match="*", count=1000)
    pair.hscan("h", 0, match="zz*")
    pair.hscan("missing")
    pair.quiet("hscan", "h", 0, count=0)
    pair.quiet("execute_command", "HSCAN", "h", "notacursor")
    pair.quiet("execute_command", "HSCAN", "h", 0, "MATCH")
    pair.quiet("execute_command", "HSCAN", "h", 0, "FOO", "bar")
    pair.set("s", "v")
    pair.quiet("hscan", "s")
    pair.apply("hscan_iter sorted", lambda c: sorted(c.hscan_iter("h", match="n*")))
