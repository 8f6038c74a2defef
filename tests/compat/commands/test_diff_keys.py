"""Keyspace commands (commands/keys.py): client under test vs real Redis 7.0.

EXISTS/DEL/TYPE, EXPIRE and its options, TTL codes and rounding, RENAME,
KEYS glob patterns, FLUSHDB/DBSIZE, EXPIRETIME/PEXPIRETIME, and key expiry
itself. TTLs are compared with a tolerance (``ttl`` +-1 s, ``pttl`` +-250 ms)
since the two sides start their clocks a few microseconds apart; expiry is
tested with short PX values and generous sleeps. The random streams mixing
these with string, hash and set commands are in test_diff_strings.py.
"""
from __future__ import annotations

import time
from typing import Any

import pytest

from differential import Pair, approx_ttl
from strings_gen import PATTERNS

pytestmark = pytest.mark.filterwarnings("ignore:Call to deprecated:DeprecationWarning")

FAR = 4102444800          # 2100-01-01, in seconds


def test_exists_delete_duplicates_and_type(pair: Pair) -> None:
    pair.set("i", 1)
    pair.zadd("z", {"a": 1})
    pair.sadd("s", "x")
    pair.hset("h", "f", 1)
    pair.exists("i", "i", "nokey")
    pair.exists("i", "z", "s", "h", "z")
    for key in ("i", "z", "s", "h", "nokey"):
        pair.type(key)
    pair.delete("i", "i", "nokey")
    pair.delete("z", "s", "h", "z")
    pair.quiet("execute_command", "EXISTS")
    pair.quiet("execute_command", "DEL")
    pair.dbsize()


def test_expire_options(pair: Pair) -> None:
    now = int(time.time())
    flag_sets = [{}, {"nx": True}, {"xx": True}, {"gt": True}, {"lt": True},
                 {"nx": True, "xx": True}, {"nx": True, "gt": True}, {"gt": True, "lt": True},
                 {"xx": True, "gt": True}, {"xx": True, "lt": True}]
    for flags in flag_sets:
        for initial_ttl in (None, 500):
            for method, amount in [("expire", 100), ("expire", 1000), ("pexpire", 100000),
                                   ("pexpire", 2000000), ("expireat", now + 700),
                                   ("pexpireat", (now + 50) * 1000), ("expire", 0),
                                   ("expire", -5)]:
                pair.set("k", "v")
                if initial_ttl:
                    pair.expire("k", initial_ttl)
                pair.quiet(method, "k", amount, **flags)
                pair.quiet(method, "nokey", amount, **flags)
                pair.apply("ttl('k')", lambda c: c.ttl("k"), compare=approx_ttl(1))
                pair.apply("pttl('k')", lambda c: c.pttl("k"), compare=approx_ttl(250))
                pair.check_keyspace(f"{method} {amount} {flags}")


def test_expire_raw_errors(pair: Pair) -> None:
    pair.set("k", "v")
    cases = [["EXPIRE", "k", "1.5"], ["EXPIRE", "k", "x"], ["EXPIRE", "k"],
             ["EXPIRE", "k", "9223372036854775807"], ["EXPIRE", "k", "922337203685477580"],
             ["PEXPIRE", "k", "9223372036854775807"], ["EXPIRE", "k", "-9223372036854775808"],
             ["EXPIREAT", "k", "9223372036854775807"], ["EXPIRE", "k", "100", "FOO"],
             ["EXPIRE", "k", "100", "NX", "XX"], ["EXPIRE", "k", "100", "GT", "LT"],
             ["EXPIRE", "k", "100", "nx", "gt"], ["EXPIRE", "k", "100", "XX", "GT"],
             ["PERSIST"], ["TTL"], ["PTTL", "k", "x"], ["PERSIST", "k", "k"]]
    for args in cases:
        pair.quiet("execute_command", *args)
        pair.apply("ttl('k')", lambda c: c.ttl("k"), compare=approx_ttl(1))
        pair.check_keyspace(" ".join(args))


def test_ttl_rounding_and_codes(pair: Pair) -> None:
    pair.ttl("nokey")
    pair.pttl("nokey")
    pair.set("k", "v")
    pair.ttl("k")
    pair.pttl("k")
    pair.persist("k")
    pair.pexpire("k", 2600)
    pair.apply("ttl('k')", lambda c: c.ttl("k"), compare=approx_ttl(0))
    pair.persist("k")
    pair.persist("k")
    pair.ttl("k")


def test_ttl_survives_in_place_and_is_dropped_by_overwrite(pair: Pair) -> None:
    steps_ = [("incr", ("n",)), ("incrbyfloat", ("n", 1.5)), ("append", ("n", "0")),
              ("setrange", ("n", 0, "9")), ("set", ("n", 5)), ("getset", ("n", 6)),
              ("set", ("n", 7, None, None, False, False, True)), ("getex", ("n",))]
    for method, args in steps_:
        pair.set("n", 1)
        pair.expire("n", 500)
        pair.quiet(method, *args)
        pair.apply("ttl('n')", lambda c: c.ttl("n"), compare=approx_ttl(1))
    pair.hset("h", "f", 1)
    pair.expire("h", 500)
    pair.hincrby("h", "f", 1)
    pair.hdel("h", "f")
    pair.exists("h")
    pair.hset("h", "f", 1)
    pair.ttl("h")


def test_rename_and_renamenx(pair: Pair) -> None:
    pair.set("a", "1", ex=500)
    pair.set("b", "2")
    pair.zadd("z", {"m": 1})
    pair.quiet("rename", "nokey", "x")
    pair.quiet("renamenx", "nokey", "x")
    pair.renamenx("a", "b")
    pair.rename("a", "c")
    pair.apply("ttl('c')", lambda c: c.ttl("c"), compare=approx_ttl(1))
    pair.rename("c", "c")
    pair.renamenx("c", "c")
    pair.rename("z", "b")
    pair.type("b")
    pair.check_keyspace()


def test_keys_glob_patterns(pair: Pair) -> None:
    for k in ["k1", "k2", "k10", "kx", "h*", "a*b", "ab", "a\\b", "[x]", "x", "", "\u00e9t\u00e9",
              "k\n"]:
        pair.set(k, 1)
    patterns = PATTERNS + ["", "[", "[]", "[!a]", "k[1-2]", "k[2-1]", "\\[x\\]", "[[]x]", "*\\",
                           "h[*]", "a?b", "a**b", "[a-]", "[^]", "\u00e9*", "k\\", "*\n"]
    for pattern in patterns:
        pair.quiet("keys", pattern)
        pair.apply(f"list(scan_iter(match={pattern!r}))",
                   lambda c, pat=pattern: list(c.scan_iter(match=pat)), unordered=True)
    pair.dbsize()


def test_flushdb_and_dbsize(pair: Pair) -> None:
    pair.set("a", 1)
    pair.zadd("z", {"m": 1})
    pair.dbsize()
    pair.flushdb()
    pair.dbsize()
    pair.keys("*")
    pair.flushdb(asynchronous=True)
    pair.quiet("execute_command", "FLUSHDB", "FOO")
    pair.quiet("execute_command", "FLUSHDB", "SYNC")


def test_randomkey(pair: Pair) -> None:
    """A draw is compared by membership; none or one key determine it."""
    pair.randomkey()
    pair.set("only", 1)
    pair.randomkey()
    pair.zadd("z", {"m": 1})
    pair.hset("h", "f", "v")
    for _ in range(5):
        pair.apply("randomkey() in keys", lambda c: c.randomkey() in {b"only", b"z", b"h"})
    pair.quiet("execute_command", "RANDOMKEY", "extra")


# --------------------------------------------------------------------------
# Expiry itself (the only timing-dependent tests; margins are generous)
# --------------------------------------------------------------------------

def test_expiry_px_keys_disappear(pair: Pair) -> None:
    pair.set("s", "v", px=50)
    pair.zadd("z", {"a": 1})
    pair.pexpire("z", 50)
    pair.hset("h", "f", "v")
    pair.pexpire("h", 50)
    pair.sadd("set", "m")
    pair.pexpire("set", 50)
    pair.psetex("ps", 50, "v")
    pair.set("keep", "v", px=60000)
    time.sleep(0.4)
    for key in ("s", "z", "h", "set", "ps"):
        pair.exists(key)
        pair.ttl(key)
        pair.pttl(key)
        pair.type(key)
    pair.get("s")
    pair.zrange("z", 0, -1)
    pair.hgetall("h")
    pair.smembers("set")
    pair.keys("*")
    pair.dbsize()
    pair.incr("s")
    pair.ttl("s")


def test_expiry_setnx_after_expiry_and_persist_before(pair: Pair) -> None:
    pair.set("a", "1", px=50)
    pair.set("b", "1", px=5000)
    pair.persist("b")
    pair.set("c", "1", ex=5)
    pair.getex("c", persist=True)
    time.sleep(0.4)
    pair.set("a", "2", nx=True)
    pair.get("a")
    pair.get("b")
    pair.ttl("b")
    pair.ttl("c")


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
