"""Each Engine fast path answers exactly what the generic execute_command path answers.

Two engines receive the same random operations: one through the overridden
(fast) methods, the other through redis-py's own CoreCommands methods, which
end in execute_command. Results, exception types and messages, and the final
keyspaces must be identical.
"""
import random
import sys
import threading
import time

import pytest


from redis.commands.core import CoreCommands  # noqa: E402

from fastrank.engine import Engine  # noqa: E402

FAST = ["zadd", "zincrby", "zscore", "zrank", "zrevrank", "zrange", "zrevrange", "incr",
        "incrby", "mget", "zmscore", "zrangebyscore", "zrevrangebyscore", "zrangebylex",
        "zrevrangebylex", "zcount", "zlexcount"]

KEYS = ["z", b"z", "z2", "s", "n", "ttl", "str", "é", "big", b"big", "n0", "nmax", "nmin",
        "nodd", "\udcff", "lex", "biglex", "mixed"]
MEMBERS = ["a", b"b", "c", 1, 2, 1.5, "é", b"\xff", True, None, 2**70, -7, "\udcff"]
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
        amount = rng.choice([1, -1, 5, 2**62, -(2**63), 2**63, "3", 1.5, True, 0,
                             2**63 - 1, -(2**63) + 1])
        return name, (key, amount), {}
    if name == "zmscore":
        members = [rng.choice(MEMBERS) for _ in range(rng.randint(0, 4))]
        return name, (key, tuple(members) if rng.random() < 0.1 else members), {}
    if name in ("zcount", "zlexcount"):
        ends = LEX_BOUNDS if "lex" in name else SCORE_BOUNDS
        return name, (key, rng.choice(ends), rng.choice(ends)), {}
    if name in ("zrangebyscore", "zrevrangebyscore", "zrangebylex", "zrevrangebylex"):
        ends = LEX_BOUNDS if "lex" in name else SCORE_BOUNDS
        opts = dict(zip(("start", "num"), rng.choice(LIMITS)))
        if "score" in name:
            opts["withscores"] = rng.choice([False, True, True, 1])
            if rng.random() < 0.1:
                opts["score_cast_func"] = int
        return name, (key, rng.choice(ends), rng.choice(ends)), opts
    keys = [rng.choice(KEYS) for _ in range(rng.randint(0, 3))]
    return "mget", (keys,), {}


# Score and lex bounds: the forms read in C and the rarer ones left to the Python rules.
SCORE_BOUNDS = [0, 1, -1, 2.5, "(1", "(1e2", "-inf", "+inf", "inf", "(-inf", "nan", "0x1p3",
                "1e999", "-1e999", "", "(", b"1\x00x", " 1", "1e", ".5", "5.", "+1", "x",
                2**70, 130, "(130", "1E2", None, -0.0, 0.1, 1e300, float("inf"), float("nan"),
                2**53, 2**53 + 1, -(2**53) - 1, 1e16, b"(2.5", b"+inf", "1.5e1", True, "(-0"]
LEX_BOUNDS = ["-", "+", "[a", "(a", "[m1", "(m5", "[", "(", "", "a", b"+\x00z", "+x", "-x",
              "[\xe9", b"[\xff", 1, "[z"]
LIMITS = [(None, None), (0, 10), (1, 2), (-1, 5), (0, -1), (2, 0), (None, 3), (3, None),
          ("1", 2), (0, "x"), (2**63, 1), (0, 1.5), (5, -7)]


# Strings that are not canonical int64 decimals (INCR refuses them).
ODD_INTS = ["007", "-0", " 1", "+1", "1 ", "1_0", "9223372036854775808", "-", "",
            "-9223372036854775809", "12345678901234567890123", "1.0"]


def setup(engine, seed=0):
    engine.zadd("z", {"a": 1, "b": 2, "c": 2, "1": -1})
    engine.zadd("ttl", {"a": 1})
    engine.expire("ttl", 1000)
    engine.sadd("s", "x")
    engine.set("n", 41)
    engine.set("str", "abc")
    # a skiplist-encoded zset (more than 128 members): the compiled ZINCRBY path
    engine.zadd("big", {**{f"m{i}": i for i in range(130)}, "a": 1, "b": 2, "-7": 0.5})
    engine.set("n0", "0")
    engine.set("nmax", str(2**63 - 1))
    engine.set("nmin", str(-(2**63)))
    engine.set("nodd", ODD_INTS[seed % len(ODD_INTS)])
    # lex ranges: one score (listpack and skiplist), and mixed scores
    engine.zadd("lex", {m: 0 for m in ("a", "b", "c", "m1", "m5", "é", "z")})
    engine.zadd("biglex", {f"m{i}": 0 for i in range(150)})
    engine.zadd("mixed", {"a": 3, "b": 1, "m1": 2, "z": 0})


@pytest.mark.parametrize("decode", [False, True])
@pytest.mark.parametrize("seed", range(12))
def test_fast_paths_equal_generic_path(seed, decode):
    rng = random.Random(seed)
    fast, slow = Engine(decode_responses=decode), Engine(decode_responses=decode)
    setup(fast, seed)
    setup(slow, seed)
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


def test_odd_integer_strings_fall_back():
    for text in ODD_INTS:
        fast, slow = Engine(), Engine()
        for e in (fast, slow):
            e.set("n", text)
        got = outcome(lambda: fast.incr("n"))
        want = outcome(lambda: CoreCommands.incr(slow, "n"))
        assert got == want, text
    r = Engine()
    r.set("n", str(2**63 - 2))
    assert r.incr("n") == 2**63 - 1
    with pytest.raises(Exception, match="overflow"):
        r.incr("n")
    r.set("n", str(-(2**63) + 1))
    assert r.incrby("n", -1) == -(2**63)
    with pytest.raises(Exception, match="overflow"):
        r.incrby("n", -1)


# -- the engine's lock, threads and transactions ---------------------------------


def test_engine_lock_is_a_reentrant_lock():
    r = Engine()
    lock = r._lock
    assert lock.acquire() and lock.acquire(False) and lock.acquire(True, 0.1)
    assert lock._is_owned()
    result = []
    t = threading.Thread(target=lambda: result.append((lock.acquire(False),
                                                       lock.acquire(True, 0.05),
                                                       lock._is_owned())))
    t.start()
    t.join()
    assert result == [(False, False, False)]
    for _ in range(3):
        lock.release()
    assert not lock._is_owned()
    with pytest.raises(RuntimeError):
        lock.release()
    with lock:
        with lock:
            assert lock._is_owned()
    t = threading.Thread(target=lambda: result.append(lock.acquire(False) and lock.release()))
    t.start()
    t.join()
    assert result[-1] is None
    with pytest.raises(ValueError):
        lock.acquire(False, 1)


def test_condition_wait_releases_a_nested_lock():
    """A blocking pop waits on a Condition of the lock while holding it twice."""
    r = Engine()
    got = []
    with r._lock:
        t = threading.Thread(target=lambda: got.append(r.bzpopmax("q", timeout=5)))
        t.start()
        time.sleep(0.05)
    for _ in range(100):  # the waiter has registered once it bumped _waiters
        if r._waiters:
            break
        time.sleep(0.01)
    with r._lock:
        with r._lock:
            r.zadd("q", {"x": 1})
    t.join(5)
    assert got == [(b"q", b"x", 1.0)]


def test_fast_path_waits_for_a_lock_held_elsewhere():
    r = Engine()
    r.zadd("big", {f"m{i}": i for i in range(200)})
    r.set("n", 1)
    done = []
    with r._lock:
        t = threading.Thread(target=lambda: done.append((r.zincrby("big", 1, "m0"),
                                                         r.incr("n"), r.zrevrank("big", "m0"))))
        t.start()
        t.join(0.2)
        assert t.is_alive() and not done
        assert r._data[b"big"].score("m0") == 0.0 and r._data[b"n"] == b"1"
    t.join(5)
    assert done == [(1.0, 2, 199)]


@pytest.mark.parametrize("decode", [False, True])
def test_fast_paths_never_interleave_with_a_transaction(decode):
    """Threads hammer the compiled fast paths while MULTI/EXEC transactions run:
    every transaction sees only its own writes, and no increment is lost."""
    r = Engine(decode_responses=decode)
    r.zadd("big", {f"m{i}": 0 for i in range(200)})
    r.set("n", 0)
    per_thread, steps = 3000, 40
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    errors = []

    def hammer():
        try:
            for i in range(per_thread):
                r.zincrby("big", 1, "m0")
                r.incr("n")
                r.zrevrank("big", "m1")
                r.zscore("big", "m0")
                r.zrevrange("big", 0, 2, withscores=True)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=hammer) for _ in range(3)]
    try:
        for t in threads:
            t.start()
        own = 0
        for _ in range(60):
            pipe = r.pipeline()
            pipe.zscore("big", "m0")
            pipe.get("n")
            for _ in range(steps):
                pipe.zincrby("big", 1, "m0")
                pipe.incr("n")
            pipe.zscore("big", "m0")
            pipe.get("n")
            res = pipe.execute()
            own += steps
            assert res[-2] == res[0] + steps
            assert int(res[-1]) == int(res[1]) + steps
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert not errors
    assert r.zscore("big", "m0") == 3 * per_thread + own
    assert int(r.get("n")) == 3 * per_thread + own
    r._data[b"big"]._check()


def test_compiled_reads_respect_expiry():
    """The compiled handlers look keys up as Engine.lookup does: an expired key is gone."""
    r = Engine()
    for key in ("z", "lex"):
        r.zadd(key, {"a": 0, "b": 0})
        r.pexpire(key, 1)
    time.sleep(0.01)
    assert r.zcount("z", "-inf", "+inf") == 0
    assert r.zmscore("z", ["a", "b"]) == [None, None]
    assert r.zrangebyscore("z", "-inf", "+inf", withscores=True) == []
    assert r.zlexcount("lex", "-", "+") == 0
    assert r.zrevrangebylex("lex", "+", "-", start=0, num=1) == []
    assert r.exists("z", "lex") == 0 and r.ttl("z") == -2
