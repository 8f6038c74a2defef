"""String and counter commands (commands/strings.py): client under test vs real Redis 7.0.

Seeded random sequences (``StringsGen``, which mixes in the hash, set and
keyspace commands that touch the same keys) plus directed tests. INCRBYFLOAT
results are compared bit-exactly (the reply float and the stored text).
"""
from __future__ import annotations

import random
import time

import pytest

from differential import Pair, approx_ttl, steps
from strings_gen import StringsGen

pytestmark = pytest.mark.filterwarnings("ignore:Call to deprecated:DeprecationWarning")


def run_random(p: Pair, seed: int, n: int, decoded: bool = False) -> None:
    gen = StringsGen(random.Random(seed), decoded=decoded)
    gen.op_setup(p)
    gen.run(p, n)


# --------------------------------------------------------------------------
# Random sequences
# --------------------------------------------------------------------------

def test_strings_keys_random_mixed(pair: Pair, seed: int) -> None:
    run_random(pair, seed * 1009 + 11, steps(3000))


def test_strings_keys_random_decoded(pair_decoded: Pair, seed: int) -> None:
    run_random(pair_decoded, seed * 2003 + 17, steps(1500), decoded=True)


# --------------------------------------------------------------------------
# Directed tests
# --------------------------------------------------------------------------

@pytest.mark.parametrize("start", ["0", "0.1", "1e20", "-0", "5e-18", "1e400", "nan", " 1",
                                   "0x10", "3", "10.5", "1.7976931348623157e308", "inf", "",
                                   "-1e-17", "123456789012345678"])
def test_incrbyfloat_tricky_values_bit_exact(pair: Pair, start: str) -> None:
    amounts = [0.1, 0.2, "0.1", "1e20", "-0", "5e-18", "1e400", "-1e400", "nan", " 1", "0x10",
               1e-17, -0.3, 3, "1.7976931348623157e308", 1e308, "-1e20"]
    for amount in amounts:
        pair.set("f", start)
        pair.quiet("incrbyfloat", "f", amount)
        pair.get("f")
        pair.quiet("incrbyfloat", "f", amount)
        pair.get("f")
    pair.quiet("incrbyfloat", "missing", "0.1")
    pair.get("missing")


def test_incrbyfloat_accumulation_bit_exact(pair: Pair) -> None:
    rng = random.Random(42)
    for _ in range(400):
        pair.incrbyfloat("acc", rng.choice([0.1, 0.2, -0.3, 1e-5, 7, 1 / 3, -1e10, 2.5e-17]))
        pair.get("acc")
    pair.incrbyfloat("big", 1e20)
    pair.incrbyfloat("big", 1e20)
    pair.get("big")
    pair.hincrbyfloat("h", "f", 0.1)
    pair.hincrbyfloat("h", "f", 0.2)
    pair.hget("h", "f")


@pytest.mark.parametrize("start", ["0", "-1", "9223372036854775807", "-9223372036854775808",
                                   " 5", "05", "1.0", "", "abc", "+1", "-0", "1e3"])
def test_incr_decr_edges(pair: Pair, start: str) -> None:
    for method, args in [("incr", ()), ("decr", ()), ("incrby", (5,)), ("decrby", (5,)),
                         ("incrby", (9223372036854775807,)), ("decrby", (-9223372036854775808,)),
                         ("incrby", (-9223372036854775808,)), ("decrby", (9223372036854775807,))]:
        pair.set("n", start)
        pair.quiet(method, "n", *args)
        pair.get("n")
    for arg in ["+1", "01", "-0", "1.5", "9223372036854775808", "", " 1"]:
        pair.set("n", start)
        pair.quiet("execute_command", "INCRBY", "n", arg)
        pair.quiet("execute_command", "DECRBY", "n", arg)
        pair.get("n")
    pair.quiet("execute_command", "INCR", "n", "1")
    pair.quiet("execute_command", "DECR")


def test_set_all_options(pair: Pair) -> None:
    now = int(time.time())
    options = [{}, {"nx": True}, {"xx": True}, {"get": True}, {"nx": True, "get": True},
               {"xx": True, "get": True}, {"ex": 100}, {"px": 100000}, {"exat": now + 100},
               {"pxat": (now + 100) * 1000}, {"keepttl": True}, {"ex": 100, "keepttl": True},
               {"nx": True, "xx": True}, {"ex": 0}, {"px": 0}, {"ex": -1}, {"exat": 1},
               {"ex": 100, "px": 1000}, {"get": True, "ex": 100}, {"ex": 10 ** 19}]
    for opts in options:
        for initial in (None, "old", "zset", "with-ttl"):
            pair.delete("k")
            if initial == "old":
                pair.set("k", "old")
            elif initial == "zset":
                pair.zadd("k", {"a": 1})
            elif initial == "with-ttl":
                pair.set("k", "old", ex=500)
            pair.quiet("set", "k", "new", **opts)
            pair.check_keyspace(f"set {opts} on {initial}")
            pair.apply("ttl('k')", lambda c: c.ttl("k"), compare=approx_ttl(1))


def test_set_raw_option_errors(pair: Pair) -> None:
    cases = [["SET", "k"], ["SET", "k", "v", "EX"], ["SET", "k", "v", "EX", "x"],
             ["SET", "k", "v", "EX", "1.5"], ["SET", "k", "v", "NX", "XX"],
             ["SET", "k", "v", "EX", "10", "PX", "10"], ["SET", "k", "v", "KEEPTTL", "EX", "10"],
             ["SET", "k", "v", "FOO"], ["SET", "k", "v", "EX", "9223372036854775807"],
             ["SET", "k", "v", "PX", "9223372036854775807"], ["SET", "k", "v", "ex", "100"],
             ["SET", "k", "v", "GET", "GET"], ["SET", "k", "v", "EXAT", "0"],
             ["SET", "k", "v", "PXAT", "-1"], ["SETEX", "k", "0", "v"], ["SETEX", "k", "x", "v"],
             ["PSETEX", "k", "-1", "v"], ["GETEX", "k", "EX"], ["GETEX", "k", "PERSIST", "EX", "1"],
             ["GETEX", "k", "FOO"], ["MSET", "a"], ["MSET", "a", "1", "b"], ["MSETNX", "a"],
             ["GETRANGE", "k", "x", "1"], ["SETRANGE", "k", "-1", "x"],
             ["SETRANGE", "k", "536870912", "x"], ["SETRANGE", "k", "536870911", ""],
             ["APPEND", "k"], ["STRLEN"], ["GETDEL", "k", "x"]]
    for initial in (None, "v"):
        for args in cases:
            pair.delete("k")
            if initial:
                pair.set("k", initial)
            pair.quiet("execute_command", *args)
            pair.check_keyspace(" ".join(args))


def test_string_commands_wrongtype(pair: Pair) -> None:
    pair.zadd("z", {"a": 1})
    pair.sadd("s", "a")
    pair.hset("h", "f", "v")
    for key in ("z", "s", "h"):
        for method, args in [("get", ()), ("set", ("v",)), ("getset", ("v",)), ("getdel", ()),
                             ("getex", ()), ("append", ("x",)), ("strlen", ()),
                             ("getrange", (0, 1)), ("setrange", (0, "x")), ("incr", ()),
                             ("decr", ()), ("incrby", (2,)), ("decrby", (2,)),
                             ("incrbyfloat", (1.5,)), ("setnx", ("v",)),
                             ("set", ("v",)), ("hget", ("f",)), ("sadd", ("m",)),
                             ("smembers", ()), ("hgetall", ()), ("hincrby", ("f", 1)),
                             ("scard", ()), ("hlen", ()), ("sismember", ("a",))]:
            kwargs = {"get": True} if method == "set" and args == ("v",) and key == "s" else {}
            pair.quiet(method, key, *args, **kwargs)
        pair.check_keyspace(key)
    pair.mget(["z", "s", "h", "nokey"])


def test_mset_msetnx_mget(pair: Pair) -> None:
    pair.mset({"a": 1, "b": b"\x00\xff", "c": 2.5})
    pair.mget(["a", "b", "c", "d"])
    pair.mget("a", "b")
    pair.msetnx({"c": 1, "d": 2})
    pair.msetnx({"d": 1, "e": 2})
    pair.mget(["d", "e"])
    pair.quiet("mset", {})
    pair.quiet("mget", [])


def test_getrange_setrange_append(pair: Pair) -> None:
    pair.set("s", "Hello World")
    for start in (0, 1, -1, -5, 5, 100, -100, 10, 11):
        for end in (0, 3, -1, -3, 100, -100, 10, 11):
            pair.getrange("s", start, end)
    pair.getrange("nokey", 0, -1)
    pair.setrange("s", 6, "Redis")
    pair.setrange("s", 20, "!")
    pair.get("s")
    pair.setrange("new", 3, "x")
    pair.get("new")
    pair.setrange("empty", 5, "")
    pair.exists("empty")
    pair.append("s", "tail")
    pair.append("fresh", "x")
    pair.strlen("s")
    pair.strlen("nokey")
    pair.set("n", 123)
    pair.append("n", 4)
    pair.incr("n")
    pair.getrange("n", 0, 1)


@pytest.mark.parametrize("text", ["-1e20000", "-1e-20000", "1e20000", "1e-20000", "-1e4933"])
def test_long_double_out_of_range_both_signs(pair: Pair, text: str) -> None:
    """Values beyond even the 80-bit range (or below its smallest subnormal)."""
    pair.set("f", "1")
    pair.quiet("incrbyfloat", "f", text)
    pair.quiet("incrbyfloat", "missing", text)
    pair.get("f")
    pair.hset("h", "f", "1")
    pair.quiet("hincrbyfloat", "h", "f", text)
    pair.hget("h", "f")
    pair.quiet("execute_command", "BZPOPMIN", "z", text)


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
