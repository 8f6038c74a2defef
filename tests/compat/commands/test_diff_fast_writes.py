"""ZADD, HINCRBY and HSET through every door: client under test vs Redis 7.0.

The Engine runs the common cases of these writes in C (``Engine.zadd``,
``Engine.hincrby`` and ``Engine.hset`` front doors; the ZADD, HINCRBY and HSET
command-table handlers used by pipelines, scripts and ``execute_command``)
and hands every other case to the Python rule. Each case here runs through
the Engine method, a pipeline, a Lua script's ``redis.call`` and
``execute_command``, on keys of every kind the fast paths must recognise or
decline (skip-list zset, listpack zset, missing key, wrong type, a key with a
TTL); every reply or error and the keyspace afterwards are compared. The
WATCH tests check that a write by the fast path fails a transaction watching
the key, and that a ZADD that changes nothing does not.
"""
from __future__ import annotations

from typing import Any, Callable

import pytest
import redis

from differential import Pair

ZADD_SCRIPT = "return redis.call('ZADD', KEYS[1], unpack(ARGV))"
HINCRBY_SCRIPT = "return redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2])"
HSET_SCRIPT = "return redis.call('HSET', KEYS[1], unpack(ARGV))"

ZSET_KEYS = ("big", "small", "text", "timed", "missing")
HASH_KEYS = ("h", "text", "timed_h", "missing_h")


def bound(fn: Callable[..., Any], *args: Any) -> Callable[[Any], Any]:
    """fn(client, *args) as a function of the client."""
    return lambda c: fn(c, *args)


def load_keys(p: Pair) -> None:
    """A skip-list zset (200 members), a listpack zset, a string, a skip-list
    zset with a TTL and a hash (with and without a TTL) of assorted values."""
    p.flushdb()
    p.zadd("big", {f"m{i}": float(i) for i in range(200)})
    p.zadd("timed", {f"m{i}": float(i) for i in range(200)})
    p.expire("timed", 1000)
    p.zadd("small", {"m0": 0, "m1": 1.5, "m2": 2})
    p.set("text", "not a container")
    values = {"int": "10", "neg": "-5", "zero": "0", "f15": "1.5", "space": " 1",
              "trail": "1 ", "lead0": "01", "plus": "+1", "minus0": "-0", "empty": "",
              "max": str(2**63 - 1), "min": str(-(2**63)), "over": "9223372036854775808",
              "long": "1" * 25, "7": "7"}
    p.hset("h", mapping=values)
    p.hset("timed_h", mapping=values)
    p.expire("timed_h", 1000)


def zadd_pipeline(c: Any, key: str, mapping: Any) -> Any:
    with c.pipeline(transaction=False) as pipe:
        pipe.zadd(key, mapping)
        return pipe.execute(raise_on_error=False)


def zadd_argv(mapping: dict[Any, Any]) -> list[Any]:
    """ZADD's score/member words as redis-py would send them."""
    words: list[Any] = []
    for member, score in mapping.items():
        words += [score, member]
    return words


def zadd_doors() -> dict[str, Callable[[Any, str, Any], Any]]:
    return {
        "method": lambda c, key, m: c.zadd(key, m),
        "pipeline": zadd_pipeline,
        "lua": lambda c, key, m: c.eval(ZADD_SCRIPT, 1, key, *zadd_argv(m)),
        "execute_command": lambda c, key, m: c.execute_command("ZADD", key, *zadd_argv(m)),
    }


ZADD_MAPPINGS = [
    {"m5": 5.0},               # same score: no change, reply 0
    {"m5": 5},                 # same score as an int
    {"m6": 6.5},               # new score
    {b"m7": 70},               # bytes member, int score
    {8: 1.25},                 # int member (member "8")
    {"m9": 2**53 + 1},         # int score that rounds
    {"m10": 10**20},           # int score beyond int64
    {"new": 3.0, "m11": -1.0, b"m12": 12.0},  # added + changed + same
    {"m0": -0.0},              # -0.0 onto 0.0: no change
    {"m13": -0.0},             # -0.0 onto 13: stored as given
    {"neg0": -0.0},            # a new member at -0.0
    {"m14": float("nan")},
    {"m15": float("inf")},
    {"m16": float("-inf")},
    {"x" * 100: 1.0},          # a long member (converts a listpack)
    {"é": 4.5},
    {"\ud800": 1.0},           # not UTF-8 encodable: redis-py's error
    {True: 1.0},               # redis-py refuses a bool
    {"m17": True},
    {1.5: 2.0},                # float member (sent as its repr)
    {"m18": "7.5"},            # score given as text
    {},                        # redis-py refuses an empty mapping
    {f"m{i}": float(i) + 0.5 for i in range(15)},      # the most pairs the C path takes
    {f"m{i}": float(i) + 0.25 for i in range(16)},     # one more
    {f"n{i}": float(i) for i in range(40)},            # the bulk path
]


@pytest.mark.parametrize("door", sorted(zadd_doors()))
def test_zadd_every_door(pair: Pair, door: str) -> None:
    add = zadd_doors()[door]
    load_keys(pair)
    for key in ZSET_KEYS:
        for mapping in ZADD_MAPPINGS:
            if door != "method" and not mapping:
                continue  # nothing to send
            pair.apply(f"{door}: zadd {key!r} {mapping!r}",
                       bound(add, key, mapping), reraise=False)
        pair.quiet("zrange", key, 0, -1, withscores=True)
    pair.check_keyspace()


def test_zadd_method_decoded(pair_decoded: Pair) -> None:
    p = pair_decoded
    p.zadd("z", {f"m{i}": i for i in range(200)})
    p.zadd("z", {"m1": 1, "m2": 2.5, "fresh": -0.0})
    p.zadd("z", {"m3": 3.5}, ch=True)
    p.zadd("z", {"m4": 9}, xx=True)
    p.zadd("z", {"m4": 1}, incr=True)
    p.zscore("z", "fresh")
    p.check_keyspace()


def test_zadd_after_expiry_and_persist(pair: Pair) -> None:
    pair.zadd("z", {f"m{i}": i for i in range(200)})
    pair.expire("z", 1000)
    pair.zadd("z", {"m1": 7})
    pair.persist("z")
    pair.zadd("z", {"m1": 8, "m2": 2})
    pair.zscore("z", "m1")
    pair.check_keyspace()


# -- HINCRBY ------------------------------------------------------------------


def hincrby_pipeline(c: Any, key: str, field: Any, amount: Any) -> Any:
    with c.pipeline(transaction=False) as pipe:
        pipe.hincrby(key, field, amount)
        return pipe.execute(raise_on_error=False)


def hincrby_doors() -> dict[str, Callable[[Any, str, Any, Any], Any]]:
    return {
        "method": lambda c, key, f, n: c.hincrby(key, f, n),
        "pipeline": hincrby_pipeline,
        "lua": lambda c, key, f, n: c.eval(HINCRBY_SCRIPT, 1, key, f, n),
        "execute_command": lambda c, key, f, n: c.execute_command("HINCRBY", key, f, n),
    }


HINCRBY_FIELDS = ["int", "neg", "zero", "f15", "space", "trail", "lead0", "plus", "minus0",
                  "empty", "max", "min", "over", "long", 7, b"int", "nofield", "\ud800"]
HINCRBY_AMOUNTS = [0, 1, -1, 5, 2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 10**30, 1.5,
                   "3", "+3", " 3", "01", "-0", "abc"]


@pytest.mark.parametrize("door", sorted(hincrby_doors()))
def test_hincrby_every_door(pair: Pair, door: str) -> None:
    incr = hincrby_doors()[door]
    for key in HASH_KEYS:
        for amount in HINCRBY_AMOUNTS:
            load_keys(pair)  # each amount starts from the same values
            for field in HINCRBY_FIELDS:
                pair.apply(f"{door}: hincrby {key!r} {field!r} {amount!r}",
                           bound(incr, key, field, amount),
                           reraise=False)
            pair.check_keyspace(f"{door} {key} {amount!r}")


def test_hincrby_overflow_both_ways(pair: Pair) -> None:
    pair.hset("h", mapping={"top": 2**63 - 2, "bottom": -(2**63) + 1})
    for door in hincrby_doors().values():
        for field, amount in (("top", 1), ("top", 1), ("bottom", -1), ("bottom", -1),
                              ("top", -(2**63)), ("bottom", 2**63 - 1)):
            pair.apply(f"hincrby {field} {amount}",
                       bound(door, "h", field, amount), reraise=False)
        pair.hgetall("h")
    pair.check_keyspace()


# -- HSET -----------------------------------------------------------------------


def hset_pipeline(c: Any, key: str, *words: Any) -> Any:
    with c.pipeline(transaction=False) as pipe:
        pipe.execute_command("HSET", key, *words)
        return pipe.execute(raise_on_error=False)


HSET_CASES = [
    ("f", "v"), ("f", "v"), ("f", "w"), (b"g", b"\x80"), (7, 8), ("big", 2**70),
    ("fl", 1.5), ("é", "ü"), ("\ud800", "x"), ("x", "\ud800"), ("n", None), (None, "v"),
    (True, "v"), ("t", False), ("", ""),
]


@pytest.mark.parametrize("key", HASH_KEYS + ("big", "small"))
def test_hset_method(pair: Pair, key: str) -> None:
    load_keys(pair)
    for field, value in HSET_CASES:
        pair.quiet("hset", key, field, value)
    pair.quiet("hset", key, "m", "1", mapping={"a": 1})
    pair.quiet("hset", key, mapping={"p": 1, b"p": 2, 3: b"3", "m": "one"})  # "p" twice
    pair.quiet("hset", key, "q", "1", mapping={"q": 2})
    pair.quiet("hset", key, mapping={"r": 1.5})
    pair.quiet("hset", key, mapping={"s": None})
    pair.quiet("hset", key, mapping={})
    pair.quiet("hset", key, items=["i", 1, "j", 2])
    pair.quiet("hset", key)
    pair.check_keyspace()


@pytest.mark.parametrize("door", ["pipeline", "lua", "execute_command"])
def test_hset_every_command_door(pair: Pair, door: str) -> None:
    send: Callable[..., Any] = {
        "pipeline": hset_pipeline,
        "lua": lambda c, key, *words: c.eval(HSET_SCRIPT, 1, key, *words),
        "execute_command": lambda c, key, *words: c.execute_command("HSET", key, *words),
    }[door]
    load_keys(pair)
    for key in HASH_KEYS + ("big", "small"):
        for words in (("f", "v"), ("f", "v"), ("f", "w", "g", "x", "f", "y"), ("a",),
                      ("a", "1", "b"), (7, 2**70), ("", "")):
            pair.apply(f"{door}: hset {key!r} {words!r}",
                       bound(send, key, *words), reraise=False)
    pair.check_keyspace()


# -- WATCH ------------------------------------------------------------------------


def watched(write: Callable[[Any], Any], key: str) -> Callable[[Any], Any]:
    """WATCH key, write(client) outside the transaction, MULTI, SET w, EXEC."""

    def scenario(c: Any) -> Any:
        with c.pipeline() as pipe:
            pipe.watch(key)
            try:
                write(c)
            except redis.ResponseError:
                pass
            pipe.multi()
            pipe.set("w", "mine")
            return pipe.execute()

    return scenario


WATCHED_WRITES = {
    "zadd_change": ("big", lambda c: c.zadd("big", {"m1": 100})),
    "zadd_new_member": ("big", lambda c: c.zadd("big", {"fresh": 1})),
    "zadd_same_score": ("big", lambda c: c.zadd("big", {"m1": 1})),
    "zadd_two_same_scores": ("big", lambda c: c.zadd("big", {"m1": 1, "m2": 2.0})),
    "zadd_other_key": ("big", lambda c: c.zadd("timed", {"m1": 100})),
    "hincrby": ("h", lambda c: c.hincrby("h", "int", 1)),
    "hincrby_zero": ("h", lambda c: c.hincrby("h", "int", 0)),
    "hincrby_new_key": ("hnew", lambda c: c.hincrby("hnew", "f", 1)),
    "hincrby_error": ("h", lambda c: c.hincrby("h", "f15", 1)),
    "hset": ("h", lambda c: c.hset("h", "int", "11")),
    "hset_same": ("h", lambda c: c.hset("h", "int", "10")),
    "hset_mapping": ("h", lambda c: c.hset("h", mapping={"int": "10", "x": "y"})),
    "hset_new_key": ("hnew", lambda c: c.hset("hnew", "f", "v")),
    "zadd_command": ("big", lambda c: c.execute_command("ZADD", "big", "100", "m1")),
    "zadd_command_same": ("big", lambda c: c.execute_command("ZADD", "big", "1", "m1")),
    "hincrby_command": ("h", lambda c: c.execute_command("HINCRBY", "h", "int", "1")),
    "hset_command": ("h", lambda c: c.execute_command("HSET", "h", "int", "1")),
}


@pytest.mark.parametrize("name", sorted(WATCHED_WRITES))
def test_watch_sees_fast_writes(pair: Pair, name: str) -> None:
    key, write = WATCHED_WRITES[name]
    load_keys(pair)
    pair.apply(f"watch {key}; {name}; multi/set/exec", watched(write, key), reraise=False)
    pair.check_keyspace()
