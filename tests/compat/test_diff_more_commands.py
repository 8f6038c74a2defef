"""Commands with few other tests: BZMPOP, EXPIRETIME/PEXPIRETIME, HMSET, HSCAN,
SSCAN, SUBSTR -- client under test vs real Redis 7.0, in the deterministic cases.

SCAN replies are deterministic for small containers: one batch, cursor 0,
in listpack order for a small hash (insertion order) and in sorted order for
an intset; a hashtable set's order is its hash order, so those members are
compared as a set.
"""
from __future__ import annotations

import time
from typing import Any

import pytest

from differential import Pair

pytestmark = pytest.mark.filterwarnings("ignore:.*:DeprecationWarning")

FAR = 4102444800          # 2100-01-01, in seconds


def test_bzmpop(pair: Pair) -> None:
    pair.zadd("z1", {"a": 1, "b": 2, "c": 3})
    pair.zadd("z2", {"x": 10})
    pair.bzmpop(1, 2, ["missing", "z1"], min=True)
    pair.bzmpop(1, 2, ["z1", "z2"], max=True, count=5)
    pair.bzmpop(1, 2, ["z1", "z2"], min=True, count=1)
    pair.exists("z1", "z2")
    pair.bzmpop(0.05, 2, ["z1", "z2"], min=True)            # times out: None
    pair.set("str", "v")
    pair.quiet("bzmpop", 1, 1, ["str"], min=True)           # WRONGTYPE
    pair.quiet("execute_command", "BZMPOP", 1, 1, "z1", "SIDEWAYS")
    pair.quiet("execute_command", "BZMPOP", 1, 0, "z1", "MIN")
    pair.quiet("execute_command", "BZMPOP", 1, 1, "z1", "MIN", "COUNT", 0)
    pair.quiet("execute_command", "BZMPOP", -1, 1, "z1", "MIN")
    pair.quiet("execute_command", "BZMPOP", "x", 1, "z1", "MIN")


def test_bzmpop_in_a_transaction_does_not_block(pair: Pair) -> None:
    def run(c: Any) -> Any:
        with c.pipeline() as pipe:
            pipe.bzmpop(0, 1, ["empty"], min=True)
            pipe.zadd("empty", {"m": 1})
            pipe.bzmpop(0, 1, ["empty"], max=True)
            return pipe.execute()

    pair.apply("MULTI bzmpop/zadd/bzmpop EXEC", run)


def test_expiretime_and_pexpiretime(pair: Pair) -> None:
    pair.set("k", "v")
    pair.expiretime("k")                                    # -1: no TTL
    pair.pexpiretime("k")
    pair.expiretime("missing")                              # -2
    pair.pexpiretime("missing")
    pair.expireat("k", FAR)
    pair.expiretime("k")
    pair.pexpiretime("k")
    pair.pexpireat("k", FAR * 1000 + 1234)
    pair.expiretime("k")                                    # seconds: truncated
    pair.pexpiretime("k")
    pair.zadd("z", {"a": 1})
    pair.pexpireat("z", FAR * 1000 + 999)
    pair.expiretime("z")
    pair.persist("z")
    pair.pexpiretime("z")
    pair.quiet("execute_command", "EXPIRETIME")
    pair.quiet("execute_command", "PEXPIRETIME", "k", "extra")


def test_expiretime_of_an_expired_key(pair: Pair) -> None:
    def run(c: Any) -> Any:
        c.set("t", "v", px=20)
        time.sleep(0.05)
        return c.expiretime("t"), c.pexpiretime("t"), c.exists("t")

    pair.apply("expiretime after expiry", run)


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


def test_sscan(pair: Pair) -> None:
    pair.sadd("ints", 5, 3, 10, -1)                         # intset: sorted
    pair.sscan("ints")
    pair.sscan("ints", 0, match="1*")
    pair.sadd("words", "b", "a", "c", "\x80")               # hashtable: compare as sets
    pair.apply("sscan words as a set",
               lambda c: (lambda r: (r[0], sorted(r[1])))(c.sscan("words")))
    pair.apply("sscan words match as a set",
               lambda c: (lambda r: (r[0], sorted(r[1])))(c.sscan("words", 0, match="[ab]")))
    pair.sscan("missing")
    pair.quiet("sscan", "ints", 0, count=-1)
    pair.quiet("execute_command", "SSCAN", "ints", "-")
    pair.set("s", "v")
    pair.quiet("sscan", "s")
    pair.apply("sscan_iter sorted", lambda c: sorted(c.sscan_iter("words")))


def test_substr(pair: Pair) -> None:
    pair.set("s", "Hello, World")
    for start, end in ((0, 4), (-5, -1), (7, 100), (5, 2), (-100, 2), (0, -1), (20, 30),
                       (-1, -5)):
        pair.substr("s", start, end)
    pair.substr("s", 3)
    pair.substr("missing", 0, 3)
    pair.quiet("substr", "s", "a", 2)
    pair.quiet("execute_command", "SUBSTR", "s", 0)
    pair.zadd("z", {"a": 1})
    pair.quiet("substr", "z", 0, 1)
