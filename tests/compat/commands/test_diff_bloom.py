"""CMS.* and TOPK.* (commands/bloom.py) through the Engine vs real RedisBloom 2.8.2, via redis-py.

Both sides are used through redis-py's own helper objects (``r.cms()``,
``r.topk()``), so return shapes are compared too: CMSInfo/TopKInfo objects
(compared by class and attributes), overflow ``ResponseError`` elements
inside INCRBY replies, TOPK.LIST names decoded and turned into numbers,
TOPK.QUERY booleans. Random streams are seeded (``seed`` fixture).

- CMS: Zipf streams of INCRBY (occasional overflow), QUERY of every item
  seen, MERGE with random (also negative) weights, INFO; every reply equal.
- TopK with decay = 1 (deterministic in RedisBloom): ADD/INCRBY replies (the
  expelled items), LIST with and without counts, QUERY, COUNT, INFO, reply
  for reply; names with NUL bytes and numeric names included.
- Every error path (arity, wrong types, bad dimensions, missing keys,
  overflow, merge mismatches, bad increments) gives the same error, and the
  sketches answer the same afterwards (state unchanged).

- The size limits of CMS.INITBYDIM / CMS.INITBYPROB / TOPK.RESERVE (the last
  section).

With decay < 1 RedisBloom's coin is libc ``rand()``; those runs are compared
statistically in tests/compat/test_bloom_redis.py, not here.
"""
from __future__ import annotations

from typing import Any, List

import numpy as np
import pytest

from differential import Pair, steps

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),  # TOPK.COUNT
              pytest.mark.usefixtures("redisbloom")]


def info(obj: Any) -> Any:
    """A comparable description of a CMSInfo/TopKInfo (or whatever came back)."""
    if hasattr(obj, "__dict__"):
        return (type(obj).__name__, sorted(vars(obj).items()))
    return obj


def cms(p: Pair, method: str, *args: Any, **kwargs: Any) -> Any:
    label = f"cms().{method}{args!r}{kwargs or ''}"
    wrap = info if method == "info" else (lambda v: v)
    return p.apply(label, lambda c: wrap(getattr(c.cms(), method)(*args, **kwargs)),
                   reraise=False)


def topk(p: Pair, method: str, *args: Any, **kwargs: Any) -> Any:
    label = f"topk().{method}{args!r}{kwargs or ''}"
    wrap = info if method == "info" else (lambda v: v)
    return p.apply(label, lambda c: wrap(getattr(c.topk(), method)(*args, **kwargs)),
                   reraise=False)


def zipf_names(rng: np.random.Generator, n: int, ids: int) -> List[Any]:
    values = (rng.zipf(1.2, n) % ids).tolist()
    return [v if v % 3 == 0 else (f"u:{v}" if v % 3 == 1 else f"b\x00{v}".encode()) for v in values]


# -- Count-Min Sketch ----------------------------------------------------------------


def test_cms_zipf_stream(pair: Pair, seed: int) -> None:
    rng = np.random.default_rng(seed)
    p = pair
    width, depth = int(rng.integers(1, 200)), int(rng.integers(1, 8))
    keys = ["{c}a", "{c}b", "{c}d"]
    for k in keys:
        cms(p, "initbydim", k, width, depth)
    cms(p, "initbydim", "{c}other", width + 1, depth)
    seen: dict = {}
    for step in range(steps(150)):
        op = rng.random()
        key = keys[int(rng.integers(len(keys)))]
        if op < 0.6:
            names = zipf_names(rng, int(rng.integers(1, 40)), 2000)
            incs = rng.integers(0, 5, len(names)).tolist()
            if rng.random() < 0.03:
                incs[int(rng.integers(len(incs)))] = int(rng.choice([2**32 - 1, 2**32, 2**40]))
            cms(p, "incrby", key, names, incs)
            seen.update(dict.fromkeys(names))
        elif op < 0.8:
            sample = list(seen)[:200] + ["never-seen"]
            cms(p, "query", key, *sample)
        elif op < 0.93:
            n = int(rng.integers(1, 4))
            srcs = [keys[int(i)] for i in rng.integers(0, len(keys), n)]
            weights = [] if rng.random() < 0.4 else rng.integers(-2, 4, n).tolist()
            cms(p, "merge", key, n, srcs, weights=weights)
        else:
            cms(p, "info", key)
    for k in keys:
        cms(p, "query", k, *list(seen))
        cms(p, "info", k)
    p.check_keyspace("end")


@pytest.mark.parametrize("args", [
    (0.01, 0.01), (0.001, 0.002), (0.003, 0.05), (1 / 3, 0.5), (0.7, 0.25),
    (0.01, 0.249999999999), (0.01, 0.12499999999), (0.01, 0.031249999999),
    ("0x0.1", "0.5"), (".5", ".5"), ("1e-1", "5e-1"), (0.2, 1e-30),
])
def test_cms_initbyprob_sizes(pair: Pair, args) -> None:
    cms(pair, "initbyprob", "k", *args)
    cms(pair, "info", "k")


def _cms_state(p: Pair, keys) -> None:
    for k in keys:
        cms(p, "query", k, "x", "y", "z", 1, b"\x00")
        cms(p, "info", k)


def test_cms_errors_leave_state(pair: Pair) -> None:
    p = pair
    p.set("s", "x")
    p.zadd("z", {"m": 1})
    for k in ("a", "b", "d"):
        cms(p, "initbydim", k, 10, 3)
    cms(p, "initbydim", "o", 5, 3)
    cms(p, "incrby", "a", ["x", "y"], [5, 7])
    cms(p, "incrby", "b", ["x", "z"], [1, 2])
    cms(p, "incrby", "d", ["z"], [9])
    bad = [
        # arity
        ("CMS.INITBYDIM",), ("CMS.INITBYDIM", "n"), ("CMS.INITBYDIM", "n", 10),
        ("CMS.INITBYDIM", "n", 10, 3, 4), ("CMS.INITBYPROB", "n", 0.1),
        ("CMS.INCRBY", "a"), ("CMS.INCRBY", "a", "x"), ("CMS.INCRBY", "a", "x", 1, "y"),
        ("CMS.QUERY", "a"), ("CMS.MERGE", "d"), ("CMS.MERGE", "d", 1), ("CMS.INFO",),
        ("CMS.INFO", "a", "b"), ("cms.info",),
        # creation
        ("CMS.INITBYDIM", "a", 1, 1), ("CMS.INITBYDIM", "s", "x", "y"),
        ("CMS.INITBYPROB", "z", 0.1, 0.1), ("CMS.INITBYDIM", "n", 0, 3),
        ("CMS.INITBYDIM", "n", -1, 3), ("CMS.INITBYDIM", "n", "x", 3),
        ("CMS.INITBYDIM", "n", "+10", 3), ("CMS.INITBYDIM", "n", "010", 3),
        ("CMS.INITBYDIM", "n", "10.0", 3), ("CMS.INITBYDIM", "n", " 10", 3),
        ("CMS.INITBYDIM", "n", 2**63, 1), ("CMS.INITBYDIM", "n", 10, 0),
        ("CMS.INITBYDIM", "n", 10, "x"), ("CMS.INITBYDIM", "n", -5, -5),
        ("CMS.INITBYPROB", "n", 0, 0.5), ("CMS.INITBYPROB", "n", 1, 0.5),
        ("CMS.INITBYPROB", "n", 0.5, 0), ("CMS.INITBYPROB", "n", 0.5, 1),
        ("CMS.INITBYPROB", "n", "x", 0.5), ("CMS.INITBYPROB", "n", 0.5, "x"),
        ("CMS.INITBYPROB", "n", "x", "y"), ("CMS.INITBYPROB", "n", 2, "x"),
        ("CMS.INITBYPROB", "n", "nan", 0.5), ("CMS.INITBYPROB", "n", 0.01, "inf"),
        ("CMS.INITBYPROB", "n", -0.1, 0.5), ("CMS.INITBYPROB", "n", 0.1, -0.5),
        ("CMS.INITBYPROB", "n", "0.1 ", 0.5), ("CMS.INITBYPROB", "n", " 0.1", 0.5),
        ("CMS.INITBYPROB", "n", "1e-400", 0.5), ("CMS.INITBYPROB", "n", 0.01, 1e-300),
        # incrby / query / info
        ("CMS.INCRBY", "a", "x", 1, "y", "z"), ("CMS.INCRBY", "a", "x", 1, "y", -1),
        ("CMS.INCRBY", "a", "x", -1, "y", "z"), ("CMS.INCRBY", "a", "x", "z", "y", -1),
        ("CMS.INCRBY", "a", "x", "1.5"), ("CMS.INCRBY", "a", "x", "+1"),
        ("CMS.INCRBY", "a", "x", "01"), ("CMS.INCRBY", "a", "x", "-0"),
        ("CMS.INCRBY", "a", "x", 2**63), ("CMS.INCRBY", "nokey", "x", "z"),
        ("CMS.INCRBY", "s", "x", 1), ("CMS.INCRBY", "z", "x", "z"),
        ("CMS.QUERY", "nokey", "x"), ("CMS.QUERY", "s", "x"), ("CMS.INFO", "nokey"),
        ("CMS.INFO", "z"),
        # merge
        ("CMS.MERGE", "nokey", 1, "a"), ("CMS.MERGE", "nokey", "x", "a"),
        ("CMS.MERGE", "s", 0, "a"), ("CMS.MERGE", "nokey", 0, "a"),
        ("CMS.MERGE", "d", "x", "a"), ("CMS.MERGE", "d", 0, "a"), ("CMS.MERGE", "d", -1, "a"),
        ("CMS.MERGE", "d", "01", "a"), ("CMS.MERGE", "d", "+1", "a"),
        ("CMS.MERGE", "d", 2**63, "a"), ("CMS.MERGE", "d", 2**62, "a"),
        ("CMS.MERGE", "d", 2, "a"), ("CMS.MERGE", "d", 1, "a", "b"),
        ("CMS.MERGE", "d", 1, "a", "WEIGHTS"), ("CMS.MERGE", "d", 1, "a", "WEIGHTS", 2, 3),
        ("CMS.MERGE", "d", 1, "a", "weights", "x"), ("CMS.MERGE", "d", 1, "a", "WEIGHTS", "1.5"),
        ("CMS.MERGE", "d", 2, "a", "b", "WEIGHTS", 1), ("CMS.MERGE", "d", 2, "a", "WEIGHTS", 1, 2),
        ("CMS.MERGE", "d", 1, "nokey"), ("CMS.MERGE", "d", 2, "a", "nokey"),
        ("CMS.MERGE", "d", 2, "nokey", "s"), ("CMS.MERGE", "d", 2, "a", "s"),
        ("CMS.MERGE", "d", 2, "a", "z"), ("CMS.MERGE", "d", 1, "o"), ("CMS.MERGE", "s", 1, "a"),
        ("CMS.MERGE", "d", 1, "a", "WEIGHTS", 2**63),
        ("CMS.MERGE", "d", 1, "a", "WEIGHTS", -2**63),
        ("CMS.MERGE", "d", 1, "a", "WEIGHTS", 2**62), ("CMS.MERGE", "d", 1, "a", "WEIGHTS", "+1"),
        ("CMS.MERGE", "d", 1, "a", "WEIGHTS", "-0"),
        ("CMS.MERGE", "d", 2, "a", "b", "WEIGHTS", 3, -1),
        ("CMS.MERGE", "d", 2, "a", "b", "WEIGHTS", 1, -6),
        ("CMS.MERGE", "d", 3, "a", "b", "WEIGHTS", "x", "y", "z"),
        ("CMS.MERGE", "d", 1, "WEIGHTS", "WEIGHTS", 1), ("CMS.MERGE", "d", 1, "weights"),
        ("CMS.MERGE", "d", 1, "weights", "WEIGHTS", 2),
        ("CMS.MERGE", "d", 1, "a", "WEIGHTS", "weights"),
        ("CMS.MERGE", "d", 1, "nokey", "WEIGHTS", "x"), ("CMS.MERGE", "d", 2, "o", "nokey"),
        ("CMS.MERGE", "d", 2, "nokey", "o"), ("CMS.MERGE", "d", 2, "o", "s"),
        ("CMS.MERGE", "d", 2, "a", "o", "WEIGHTS", 1, "x"),
        ("CMS.MERGE", "d", 2, "o", "a", "WEIGHTS", 1, 1),
        ("CMS.MERGE", "d", 1, "a", "WEIGHTS", 1, "extra"),
        ("GET", "a"), ("PFADD", "a", "x"), ("ZADD", "a", 1, "m"),
    ]
    for args in bad:
        p.quiet("execute_command", *args)
        _cms_state(p, ["a", "b", "d", "o"])
    p.check_keyspace("after the errors")
    # valid edge cases next to the errors
    for args in [("CMS.MERGE", "d", 2, "a", "d", "WEIGHTS", 1, 1), ("CMS.MERGE", "d", 1, "a", "WEIGHTS", 0),
                 ("CMS.MERGE", "d", 1, "a", "weights", -1), ("CMS.MERGE", "d", 1, "a"),
                 ("CMS.INITBYDIM", "weights", 10, 3), ("CMS.MERGE", "weights", 1, "a"),
                 ("TYPE", "a"), ("CMS.INITBYDIM", "big", 4096, 1)]:
        p.quiet("execute_command", *args)
        _cms_state(p, ["a", "b", "d", "o"])


def test_cms_overflow_elements(pair: Pair) -> None:
    p = pair
    cms(p, "initbydim", "c", 10, 3)
    cms(p, "incrby", "c", ["a"], [2**63 - 1])
    cms(p, "incrby", "c", ["b", "a", "zz"], [2**32, 0, 5])
    cms(p, "query", "c", "a", "b", "zz", "q")
    cms(p, "info", "c")
    cms(p, "incrby", "c", ["q"], [2**32 - 2])
    cms(p, "incrby", "c", ["q"], [1])
    cms(p, "initbydim", "m", 10, 3)
    cms(p, "merge", "m", 1, ["c"])
    cms(p, "merge", "m", 2, ["c", "c"])
    cms(p, "merge", "m", 2, ["c", "c"], weights=[1, -1])
    cms(p, "merge", "m", 2, ["c", "c"], weights=[0, 0])
    cms(p, "query", "m", "a", "b", "zz", "q")
    cms(p, "info", "m")
    # partial sums may go negative; the 64-bit total may not overflow
    cms(p, "initbydim", "s", 10, 3)
    cms(p, "initbydim", "big", 10, 3)
    cms(p, "incrby", "s", ["a"], [5])
    cms(p, "incrby", "big", ["a"], [2**62])
    for srcs, weights in [(["s", "s"], [-1, 1]), (["s", "s"], [1, -1]), (["s", "m"], [-1, 1]),
                          (["big", "big"], []), (["big", "big"], [1, -1]), (["big", "big"], [2, -1]),
                          (["big"], [2]), (["big"] * 3, [1, 1, -1]), (["big"] * 3, [-1, 1, 1]),
                          (["c", "s"], [0, 1]), (["s", "c"], [1, -1])]:
        cms(p, "merge", "m", len(srcs), srcs, weights=weights)
        cms(p, "query", "m", "a", "b", "zz", "q")
        cms(p, "info", "m")


def test_cms_decoded(pair_decoded: Pair) -> None:
    p = pair_decoded
    cms(p, "initbydim", "c", 20, 4)
    cms(p, "incrby", "c", ["é", "b", 7], [1, 2, 3])
    cms(p, "query", "c", "é", "b", 7, "zz")
    cms(p, "info", "c")
    p.type("c")


# -- Top-K (decay 1: deterministic) ------------------------------------------------


def _topk_state(p: Pair, key: str, probe) -> None:
    topk(p, "list", key)
    topk(p, "list", key, withcount=True)
    topk(p, "query", key, *probe)
    topk(p, "count", key, *probe)
    topk(p, "info", key)


def test_topk_decay_one_stream(pair: Pair, seed: int) -> None:
    rng = np.random.default_rng(seed)
    p = pair
    k = int(rng.integers(1, 12))
    width, depth = int(rng.integers(1, 40)), int(rng.integers(1, 6))
    topk(p, "reserve", "t", k, width, depth, 1)
    seen: List[Any] = []
    for step in range(steps(200)):
        op = rng.random()
        if op < 0.5:
            names = zipf_names(rng, int(rng.integers(1, 30)), 300)
            seen += names
            topk(p, "add", "t", *names)
        elif op < 0.8:
            names = zipf_names(rng, int(rng.integers(1, 10)), 300)
            seen += names
            topk(p, "incrby", "t", names, rng.integers(0, 20, len(names)).tolist())
        elif op < 0.9:
            topk(p, "list", "t", withcount=bool(rng.random() < 0.5))
        else:
            probe = [seen[int(i)] for i in rng.integers(0, len(seen), 20)] if seen else ["x"]
            topk(p, "query", "t", *probe)
            topk(p, "count", "t", *probe)
    _topk_state(p, "t", list(dict.fromkeys(seen))[:300] + ["never"])
    p.check_keyspace("end")


def test_topk_compat_example_and_names(pair: Pair) -> None:
    p = pair
    topk(p, "reserve", "t", 3, 1000, 5, 0.9)  # wide: no collisions, deterministic
    topk(p, "add", "t", "a", "b", "c", "d", "a", "a", "b")
    _topk_state(p, "t", ["a", "b", "c", "d", "zz"])
    topk(p, "incrby", "t", ["c", "e"], [10, 0])
    _topk_state(p, "t", ["a", "b", "c", "d", "e"])
    topk(p, "reserve", "n", 2, 50, 4, 1)
    topk(p, "add", "n", "ab\x00cd", "ab\x00cd", "\x00x", "\x00x", "\x00x")
    _topk_state(p, "n", ["ab", "ab\x00cd", "", "\x00x"])
    topk(p, "add", "n", "q", "q", "q", "w", "w", "w", "w", "w")
    topk(p, "reserve", "num", 4, 100, 3, 1)
    topk(p, "add", "num", "42", "1.5", "1e5", "-3", "inf", "nan", "0x10", "x", 7, 2.5)
    _topk_state(p, "num", ["42", 42, "1e5", "x"])
    topk(p, "reserve", "def", 2)  # execute_command path: RESERVE with defaults
    p.quiet("execute_command", "TOPK.RESERVE", "def2", 2)
    topk(p, "info", "def2")
    p.type("t")


def test_topk_errors_leave_state(pair: Pair) -> None:
    p = pair
    p.set("s", "x")
    p.zadd("z", {"m": 1})
    topk(p, "reserve", "t", 3, 50, 4, 1)
    topk(p, "add", "t", "a", "b", "a", "c", "d", "a")
    probe = ["a", "b", "c", "d", "e"]
    bad = [
        ("TOPK.RESERVE",), ("TOPK.RESERVE", "n"), ("TOPK.RESERVE", "n", 1, 2),
        ("TOPK.RESERVE", "n", 1, 2, 3), ("TOPK.RESERVE", "n", 1, 2, 3, 0.5, 6),
        ("TOPK.ADD",), ("TOPK.ADD", "t"), ("TOPK.INCRBY", "t"), ("TOPK.INCRBY", "t", "a"),
        ("TOPK.INCRBY", "t", "a", 1, "b"), ("TOPK.QUERY", "t"), ("TOPK.COUNT", "t"),
        ("TOPK.LIST",), ("TOPK.LIST", "t", "WITHCOUNT", "x"), ("TOPK.INFO",),
        ("TOPK.INFO", "t", "x"), ("topk.add", "t"),
        ("TOPK.RESERVE", "t", 1), ("TOPK.RESERVE", "s", "x"), ("TOPK.RESERVE", "z", 1),
        ("TOPK.RESERVE", "n", "x"), ("TOPK.RESERVE", "n", 0), ("TOPK.RESERVE", "n", -1),
        ("TOPK.RESERVE", "n", 1, 0, 1, 1), ("TOPK.RESERVE", "n", 1, 1, 0, 1),
        ("TOPK.RESERVE", "n", 1, 1, 1, 0), ("TOPK.RESERVE", "n", 1, 1, 1, 1.5),
        ("TOPK.RESERVE", "n", 1, 1, 1, "x"), ("TOPK.RESERVE", "n", 1, 1, 1, "nan"),
        ("TOPK.RESERVE", "n", "x", "y", "z", "w"), ("TOPK.RESERVE", "n", 1, "y", 0, "w"),
        ("TOPK.RESERVE", "n", 1, 1, "z", "w"), ("TOPK.RESERVE", "n", 3, "+5", 3, 0.5),
        ("TOPK.RESERVE", "n", 3, 5, 3, " 0.5"), ("TOPK.RESERVE", "n", 3, 5, 3, "-0.0"),
        ("TOPK.RESERVE", "n", 3, 5, 3, "1e-400"), ("TOPK.RESERVE", "n", 3, 5, 3, "1.0000001"),
        ("TOPK.ADD", "nokey", "a"), ("TOPK.ADD", "s", "a"), ("TOPK.ADD", "z", "a"),
        ("TOPK.INCRBY", "nokey", "a", "x"), ("TOPK.INCRBY", "s", "a", "x"),
        ("TOPK.QUERY", "nokey", "a"), ("TOPK.QUERY", "s", "a"), ("TOPK.COUNT", "nokey", "a"),
        ("TOPK.COUNT", "z", "a"), ("TOPK.LIST", "nokey"), ("TOPK.LIST", "s"),
        ("TOPK.LIST", "nokey", "x"), ("TOPK.LIST", "s", "x"), ("TOPK.LIST", "t", "x"),
        ("TOPK.LIST", "t", "withcounts"), ("TOPK.INFO", "nokey"), ("TOPK.INFO", "s"),
        ("CMS.INFO", "t"), ("CMS.QUERY", "t", "a"), ("GET", "t"), ("PFCOUNT", "t"),
        ("PFCOUNT", "s", "t"), ("TOPK.INFO", "z"),
    ]
    for args in bad:
        p.quiet("execute_command", *args)
        _topk_state(p, "t", probe)
    # the bad increment in the last pair: RedisBloom's own (well-formed) reply
    for incs in (["x"], [1, -1], [2, 100001], [3, "1.5"], [1, "+1"], [0, "01"]):
        items = ["a", "e"][:len(incs)]
        topk(p, "incrby", "t", items, incs)
        _topk_state(p, "t", probe)
    topk(p, "incrby", "t", ["e"], [100000])
    for spelling in ("WITHCOUNT", "withcount", "w", "With", ""):
        p.quiet("execute_command", "TOPK.LIST", "t", spelling)
    p.check_keyspace("end")


def test_topk_decoded(pair_decoded: Pair) -> None:
    p = pair_decoded
    topk(p, "reserve", "t", 3, 100, 4, 1)
    topk(p, "add", "t", "é", "42", "x", "y", "y", "1.5")
    _topk_state(p, "t", ["é", "42", "y", "zz"])
    p.type("t")


WATCH_CASES = [
    ("CMS.QUERY", "c", "a"), ("CMS.INFO", "c"), ("CMS.INCRBY", "c", "a", "x"),
    ("CMS.INCRBY", "c", "a", 1), ("CMS.INCRBY", "n7", "a", 1), ("CMS.MERGE", "c", 1, "nokey"),
    ("CMS.MERGE", "c", 1, "c"), ("CMS.MERGE", "c", "x", "c"), ("CMS.MERGE", "n5", 1, "c"),
    ("CMS.MERGE", "s", 1, "c"), ("CMS.MERGE", "c"), ("CMS.INITBYDIM", "c", 1, 1),
    ("CMS.INITBYDIM", "n2", "x", 1), ("CMS.INITBYPROB", "n3", "x", 1),
    ("CMS.INITBYDIM", "s", 1, 1), ("TOPK.QUERY", "t", "a"), ("TOPK.LIST", "t"),
    ("TOPK.COUNT", "t", "a"), ("TOPK.INFO", "t"), ("TOPK.ADD", "t", "a"),
    ("TOPK.ADD", "n4", "a"), ("TOPK.ADD", "s", "a"), ("TOPK.INCRBY", "t", "a", "x"),
    ("TOPK.INCRBY", "t", "a", 0), ("TOPK.INCRBY", "n6", "a", 1), ("TOPK.RESERVE", "t", 1),
    ("TOPK.RESERVE", "n1", "x"), ("PFADD", "h"), ("PFADD", "h"), ("PFCOUNT", "h"),
    ("PFCOUNT", "h"), ("PFMERGE", "h"), ("PFCOUNT", "c"),
]


def test_which_commands_dirty_a_watch(pair: Pair) -> None:
    """RedisBloom signals a key opened for writing even when the command then
    fails, and CMS.INCRBY never signals: WATCH sees exactly that."""
    import redis

    def watched(cmd):
        def run(c):
            with c.pipeline() as pipe:
                pipe.watch(cmd[1])
                try:
                    c.execute_command(*cmd)
                except redis.ResponseError:
                    pass
                pipe.multi()
                pipe.ping()
                try:
                    pipe.execute()
                    return "clean"
                except redis.WatchError:
                    return "dirty"
        return run

    pair.execute_command("CMS.INITBYDIM", "c", 10, 3)
    pair.execute_command("TOPK.RESERVE", "t", 3)
    pair.set("s", "x")
    for cmd in WATCH_CASES:
        pair.apply(f"watch {cmd[1]!r}; {' '.join(map(str, cmd))}; exec", watched(cmd))


# --------------------------------------------------------------------------
# CMS.INITBYDIM / CMS.INITBYPROB / TOPK.RESERVE size limits: Engine vs
# RedisBloom 2.8.2, reply for reply (exception class and text).
#
# Observed on the server: width and depth are signed 64-bit (past that:
# "invalid width" / "invalid depth"); a CMS whose width * depth passes
# 2^63 - 1 is "CMS: invalid init arguments", as is an INITBYPROB whose width
# ceil(2 / error) reaches 2^63 or whose single-precision depth is 0 or
# infinite; sizes it accepts but cannot allocate answer "CMS: Insufficient
# memory to create the key" (TopK: "ERR Insufficient memory to create topk
# data structure").  Only sizes whose answer does not depend on the machine
# are sent: refusals, and allocations so big that no machine can make them
# (their byte count does not fit in 64 bits).  (RedisBloom crashes on some
# other huge sizes, and TOPK.RESERVE k = 2^32, which are not sent.)
# --------------------------------------------------------------------------

INITBYDIM = [
    (2**40, 2**40),                  # the issue's example: invalid init arguments
    (2**32, 2**32), (2**62, 2), (3074457345618258603, 3), (2**62, 4), (2**63 - 1, 2),
    (2**62 - 1, 2), (2**63 - 1, 1), (3074457345618258602, 3),  # no memory
    (2**63, 1), (2**64 - 1, 1), (1, 2**63), (0, 1), (-1, 1), (1, 0), (1, -5),
    ("1.5", 1), (1, "x"),
]
INITBYPROB = [
    (1e-19, 0.5), (1e-300, 0.5), (0.01, 1e-300), (0.01, 1e-46), (0.01, 0.99999999),
    (2.2e-19, 0.5),                  # width 9.09e18: accepted, no memory
    (0, 0.5), (1, 0.5), (0.5, 0), (0.5, 1), ("x", 0.5), (0.5, "nan"),
]
RESERVE = [
    (0, 8, 7, 0.9), (-1, 8, 7, 0.9), (2**63, 8, 7, 0.9),
    (10, 0, 7, 0.9), (10, 2**32, 7, 0.9), (10, 2**63 - 1, 7, 0.9),
    (10, 8, 0, 0.9), (10, 8, 2**32, 0.9),
    (10, 2**32 - 1, 2**32 - 1, 0.9),   # no memory
    (10, 8, 7, 1.5), (10, 8, 7, 0), (10, 8, 7, -0.1),
]


@pytest.mark.parametrize("width, depth", INITBYDIM)
def test_cms_initbydim_limits(pair: Pair, width: object, depth: object) -> None:
    pair.quiet("execute_command", "CMS.INITBYDIM", "c", width, depth)
    pair.exists("c")


@pytest.mark.parametrize("error, probability", INITBYPROB)
def test_cms_initbyprob_limits(pair: Pair, error: object, probability: object) -> None:
    pair.quiet("execute_command", "CMS.INITBYPROB", "c", error, probability)
    pair.exists("c")


@pytest.mark.parametrize("k, width, depth, decay", RESERVE)
def test_topk_reserve_limits(pair: Pair, k: int, width: int, depth: int, decay: float) -> None:
    pair.quiet("execute_command", "TOPK.RESERVE", "t", k, width, depth, decay)
    pair.exists("t")


def test_redis_py_helper_on_the_issue_example(pair: Pair) -> None:
    pair.apply("cms().initbydim(2**40, 2**40)", lambda c: c.cms().initbydim("c", 2**40, 2**40),
               reraise=False)
    pair.apply("cms().initbydim(10, 3)", lambda c: c.cms().initbydim("c", 10, 3))
    pair.apply("cms().info", lambda c: vars(c.cms().info("c")))
