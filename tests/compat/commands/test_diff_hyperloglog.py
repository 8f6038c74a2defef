"""HyperLogLog commands (commands/hyperloglog.py) through the Engine vs real
Redis 7.0: every reply, every GET.

The core's raw-bytes helpers are checked against Redis in
tests/compat/test_hll_redis.py; this suite checks the Engine around them
through redis-py: PFADD / PFCOUNT (one key and unions) / PFMERGE / GET / SET /
APPEND / SETRANGE / STRLEN / TYPE / TTL on random seeded streams, comparing
every reply and the string bytes after every step; hostile and mutated
strings (the same error for the same command, the same bytes left behind);
bytes moved both ways; errors and their order, with the keyspace unchanged
afterwards.
"""
from __future__ import annotations

import random
from typing import List

import pytest

from differential import Pair, steps
from test_hll_redis import HOSTILE, _mutate, random_members

KEYS = ["{h}1", "{h}2", "{h}3", "{h}4"]


def _members(rng: random.Random) -> List[object]:
    n = rng.choice([0, 1, 1, 2, 3, 5, 20, 100, 400]) if rng.random() > 0.03 else 1700
    if rng.random() < 0.3:  # repeats: PFADD replies 0, caches stay valid
        return ["r%d" % rng.randrange(50) for _ in range(max(n, 1) // 2 + 1)]
    return random_members(rng, n)


def _check_bytes(p: Pair, keys) -> None:
    for k in keys:
        p.get(k)


def test_hll_random_stream(pair: Pair, seed: int) -> None:
    rng = random.Random(seed)
    p = pair
    for step in range(steps(400)):
        op = rng.random()
        key = rng.choice(KEYS)
        if op < 0.40:
            p.quiet("pfadd", key, *_members(rng))
        elif op < 0.58:
            p.quiet("pfcount", key)
        elif op < 0.68:
            p.quiet("pfcount", *rng.sample(KEYS + ["{h}missing"], rng.randint(2, 4)))
        elif op < 0.78:
            p.quiet("pfmerge", rng.choice(KEYS + ["{h}new"]),
                    *rng.sample(KEYS + ["{h}missing"], rng.randint(0, 3)))
        elif op < 0.83:  # copy the bytes to another key (interop within a server)
            value = p.engine.get(key)
            if value is not None:
                p.set(rng.choice(KEYS), value)
        elif op < 0.86:
            p.quiet("append", key, bytes(rng.randrange(256) for _ in range(rng.randint(1, 3))))
        elif op < 0.88:
            value = p.engine.get(key)
            if value:
                p.quiet("setrange", key, rng.randrange(len(value) + 2), bytes([rng.randrange(256)]))
        elif op < 0.91:
            p.quiet("delete", key)
        elif op < 0.94:
            p.quiet("expire", key, 1000)
            p.apply(f"ttl({key!r}) > 0", lambda c: c.ttl(key) > 0)
        elif op < 0.96:
            p.quiet("set", key, "plain string")
        else:
            p.quiet("type", key)
            p.quiet("strlen", key)
        _check_bytes(p, [key])
        if step % 50 == 49:
            _check_bytes(p, KEYS + ["{h}new"])
    p.check_keyspace("end")


def test_incremental_curve_through_promotion(pair: Pair) -> None:
    for i in range(1700):
        pair.pfadd("curve", "item:%d" % i)
        if i % 7 == 0 or 1660 <= i <= 1680:
            pair.get("curve")
            pair.pfcount("curve")
            pair.get("curve")
    pair.strlen("curve")


def test_cache_and_ttl_rules(pair: Pair) -> None:
    p = pair
    p.pfadd("k", "a", "b", "c")
    p.get("k")
    p.pfcount("k")
    p.get("k")
    p.pfadd("k", "d")
    p.get("k")  # stale flag set, low bytes kept
    forged = p.get("k")[:8] + (12345).to_bytes(8, "little") + p.get("k")[16:]
    p.set("f", forged)
    p.pfcount("f")  # a valid cache is trusted
    p.get("f")
    p.pfadd("t", "x")
    p.expire("t", 500)
    p.pfadd("t", "y")
    p.pfcount("t")
    p.pfmerge("t", "k")
    p.apply("ttl(t) kept", lambda c: c.ttl("t") > 0)
    p.pfmerge("fresh", "t")
    p.ttl("fresh")
    p.execute_command("PFADD", "empty")
    p.execute_command("PFADD", "empty")
    p.execute_command("PFMERGE", "alone")
    p.get("empty")
    p.get("alone")
    p.pfcount("empty", "alone", "k")
    p.get("k")  # union counts never write a cache


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_strings_through_engine(pair: Pair, name: str) -> None:
    value = HOSTILE[name]
    for args in (("pfcount", "k"), ("pfadd", "k", "a", "zz", "item:7"), ("pfadd", "k"),
                 ("pfcount", "k", "g"), ("pfcount", "g", "k"), ("pfmerge", "g", "k"),
                 ("pfmerge", "k", "g"), ("pfmerge", "new", "g", "k")):
        pair.set("k", value)
        pair.delete("new")
        pair.pfadd("g", "a", "b")
        pair.quiet(*args)
        pair.get("k")
        pair.get("g")
        pair.exists("new")


def test_mutated_strings_through_engine(pair: Pair, seed: int) -> None:
    rng = random.Random(seed)
    bases = []
    for n in (0, 1, 5, 60, 400, 3000):
        pair.delete("base")
        pair.pfadd("base", *["b%d" % i for i in range(n)])
        bases.append(pair.get("base"))
    for _ in range(steps(150)):
        v = rng.choice(bases)
        for _ in range(rng.randint(1, 3)):
            v = _mutate(rng, v)
        pair.set("k", v)
        pair.delete("g")
        pair.pfadd("g", "g1", "g2")
        op = rng.randrange(5)
        if op == 0:
            pair.quiet("pfcount", "k")
        elif op == 1:
            pair.quiet("pfadd", "k", *random_members(rng, rng.choice([1, 5, 50])))
        elif op == 2:
            pair.quiet("pfcount", "g", "k")
        elif op == 3:
            pair.quiet("pfmerge", "g", "k")
        else:
            pair.quiet("pfmerge", "k", "g")
        pair.get("k")
        pair.get("g")


def test_bytes_move_both_ways(pair: Pair, seed: int) -> None:
    rng = random.Random(seed)
    for n in (0, 3, 300, 1669, 1671, 5000):
        members = random_members(rng, n)
        # Redis -> Engine: the real server's bytes SET into both
        pair.real.delete("src")
        pair.real.pfadd("src", *members)
        if rng.random() < 0.5:
            pair.real.pfcount("src")
        pair.set("from-redis", pair.real.get("src"))
        # Engine -> Redis: the engine's bytes SET into both
        pair.engine.delete("src")
        pair.engine.pfadd("src", *members)
        pair.set("from-engine", pair.engine.get("src"))
        pair.get("from-redis")
        pair.get("from-engine")
        pair.pfcount("from-redis")
        pair.pfadd("from-engine", "one more", "and another")
        pair.pfcount("from-engine", "from-redis")
        pair.pfmerge("from-redis", "from-engine")
        pair.get("from-redis")


def test_hll_errors_leave_state(pair: Pair) -> None:
    p = pair
    p.set("s", "not an hll at all")
    p.set("i", "12345678901234567")
    p.zadd("z", {"a": 1})
    p.pfadd("h", "x", "y")
    p.hset("hash", "f", "v")
    for args in [
        ("PFADD",), ("PFCOUNT",), ("PFMERGE",),
        ("PFADD", "s", "a"), ("PFADD", "i", "a"), ("PFADD", "z", "a"), ("PFADD", "hash"),
        ("PFCOUNT", "s"), ("PFCOUNT", "z"), ("PFCOUNT", "h", "s"), ("PFCOUNT", "h", "z"),
        ("PFCOUNT", "z", "s"), ("PFCOUNT", "s", "z"), ("PFCOUNT", "nokey", "hash", "s"),
        ("PFMERGE", "s", "h"), ("PFMERGE", "h", "s"), ("PFMERGE", "z", "h"),
        ("PFMERGE", "h", "z"), ("PFMERGE", "new", "h", "s"), ("PFMERGE", "new", "z"),
        ("pfadd", "h"), ("pfcount", "h", "h"), ("GET", "h"), ("TYPE", "h"),
    ]:
        p.quiet("execute_command", *args)
        p.check_keyspace(" ".join(map(str, args)))


def test_hll_decoded_client(pair_decoded: Pair) -> None:
    p = pair_decoded
    p.pfadd("k", "é", "b")
    p.pfcount("k")
    p.pfmerge("m", "k")
    p.quiet("get", "k")  # UnicodeDecodeError on both sides
    p.type("k")
    p.set("s", "text")
    p.quiet("pfadd", "s", "a")
