"""Each Engine fast path answers exactly what the generic execute_command path answers.

Two engines receive the same random operations: one through the overridden
(fast) methods, the other through redis-py's own CoreCommands methods, which
end in execute_command. Results, exception types and messages, and the final
keyspaces must be identical.
"""
import random

import pytest


from redis.commands.core import CoreCommands  # noqa: E402

from fastrank.engine import Engine  # noqa: E402

FAST = ["zadd", "zincrby", "zscore", "zrank", "zrevrank", "zrange", "zrevrange", "incr",
        "incrby", "mget"]

KEYS = ["z", b"z", "z2", "s", "n", "ttl", "str", "é"]
MEMBERS = ["a", b"b", "c", 1, 2, 1.5, "é", b"\xff", True, None, 2**70]
AMOUNTS = [1, -1, 0.5, 1e300, float("inf"), float("-inf"), float("nan"), 2**64, "2", "x",
           -0.0, True]


def outcome(fn):
    try:
        return ("ok", fn())
    except Exception as exc:  # the exception class and text are part of the answer
        return ("exc", type(exc), str(exc))


def random_call(rng):
    name = rng.choice(FAST)
    key = rng.choice(KEYS)
    member = rng.choice(MEMBERS)
    if name == "zadd":
        mapping = {rng.choice(MEMBERS): rng.choice(AMOUNTS) for _ in range(rng.randint(0, 3))}
        flags = {f: rng.random() < 0.2 for f in ("nx", "xx", "ch", "incr", "gt", "lt")}
        return name, (key, mapping), flags
    if name == "zincrby":
        return name, (key, rng.choice(AMOUNTS), member), {}
    if name in ("zscore",):
        return name, (key, member), {}
    if name in ("zrank", "zrevrank"):
        return name, (key, member), {"withscore": rng.random() < 0.1}
    if name in ("zrange", "zrevrange"):
        ends = [0, -1, 1, -2, 5, 100, -100, 2**63, "1", 1.5]
        opts = {"withscores": rng.random() < 0.5}
        if name == "zrange":
            opts["desc"] = rng.random() < 0.3
        if rng.random() < 0.1:
            opts["score_cast_func"] = int
        return name, (key, rng.choice(ends), rng.choice(ends)), opts
    if name in ("incr", "incrby"):
        amount = rng.choice([1, -1, 5, 2**62, -(2**63), 2**63, "3", 1.5, True])
        return name, (key, amount), {}
    keys = [rng.choice(KEYS) for _ in range(rng.randint(0, 3))]
    return "mget", (keys,), {}


def setup(engine):
    engine.zadd("z", {"a": 1, "b": 2, "c": 2, "1": -1})
    engine.zadd("ttl", {"a": 1})
    engine.expire("ttl", 1000)
    engine.sadd("s", "x")
    engine.set("n", 41)
    engine.set("str", "abc")


@pytest.mark.parametrize("decode", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_fast_paths_equal_generic_path(seed, decode):
    rng = random.Random(seed)
    fast, slow = Engine(decode_responses=decode), Engine(decode_responses=decode)
    setup(fast)
    setup(slow)
    for _ in range(1500):
        name, args, opts = random_call(rng)
        got = outcome(lambda: getattr(fast, name)(*args, **opts))
        want = outcome(lambda: getattr(CoreCommands, name)(slow, *args, **opts))
        assert got == want or repr(got) == repr(want), (name, args, opts)
    assert fast._data.keys() == slow._data.keys()
    for key, value in fast._data.items():
        other = slow._data[key]
        assert type(value) is type(other)
        if hasattr(value, "items"):
            assert value.items() == other.items()
        else:
            assert value == other
        if hasattr(value, "_check"):
            value._check()


def test_fast_paths_respect_expiry():
    r = Engine()
    r.zadd("z", {"a": 1})
    r.pexpire("z", 1)
    import time

    time.sleep(0.01)
    assert r.zscore("z", "a") is None
    assert r.zincrby("z", 1, "a") == 1.0
    assert r.ttl("z") == -1


@pytest.mark.parametrize("seed", range(4))
def test_bulk_zadd_equals_generic_path(seed):
    """Plain ZADDs of many members into a big zset take the core's batch path."""
    rng = random.Random(seed)
    fast, slow = Engine(), Engine()
    base = {f"m{i}": float(i) for i in range(300)}  # a skiplist-encoded zset
    for e in (fast, slow):
        e.zadd("big", base)
    pool = [f"m{i}" for i in range(0, 400, 3)] + [1, "1", b"1", "new", b"\xff"]
    plain = [0.5, -2, 1e300, 3, 2**70, 7.25]                  # the batch path takes these
    odd = plain + [float("inf"), float("-inf"), 0.0, -0.0]      # these go member by member
    for step in range(60):
        scores = plain if step % 2 else odd
        mapping = {rng.choice(pool): rng.choice(scores) for _ in range(rng.randint(10, 60))}
        flags = {"ch": rng.random() < 0.2, "nx": rng.random() < 0.1} if step % 3 == 0 else {}
        got = outcome(lambda: fast.zadd("big", mapping, **flags))
        want = outcome(lambda: CoreCommands.zadd(slow, "big", mapping, **flags))
        assert got == want, mapping
    assert repr(fast.zrange("big", 0, -1, withscores=True)) == \
        repr(slow.zrange("big", 0, -1, withscores=True))
    fast._data[b"big"]._check()
