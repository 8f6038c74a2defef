"""The sorted-set algebra (ZUNION/ZINTER/ZDIFF, their STORE forms, ZINTERCARD)
against real Redis 7.0, with hypothesis choosing the sources and options.

Sources are zsets (small listpacks, or skiplists of 150+ members, some
created from a member longer than 64 bytes so that their -0.0 scores
survive), plain sets (score 1), missing keys and now and then a string
(WRONGTYPE before any change); scores and weights include +-inf, 0, -0.0
and huge values, so inf * 0 and inf + -inf (NaN, counted 0 in Redis's
rules) and the sign of zero are all met under SUM, MIN and MAX. Every
reply is compared (scores bit-exactly), the destination read back, its
scores also by ZSCORE (whose reply shows a stored -0.0).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from differential import Pair
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

INF = float("inf")
LONG = "L" * 65
SCORES = [0.0, -0.0, 1.0, -1.0, 2.5, INF, -INF, 1e308, -1e308, 5e-324, 3.0]
WEIGHTS = [1.0, 0.0, -0.0, -1.0, 0.5, 2.0, INF, -INF, 1e308]
SMALL_MEMBERS = ["a", "b", "c", "d", "e", LONG]
PROBES = SMALL_MEMBERS + ["m0000", "m0150", "m0170", "m0201", "m0250", "m0399"]

scores = st.sampled_from(SCORES)
small_zset = st.dictionaries(st.sampled_from(SMALL_MEMBERS), scores, min_size=1, max_size=6)


@st.composite
def big_zset(draw: Any) -> Dict[str, float]:
    """150..260 members from an offset (overlapping other big sources), a
    long first member when chosen (a skiplist from the start)."""
    start = draw(st.integers(0, 200))
    size = draw(st.integers(150, 260))
    pool = draw(st.lists(scores, min_size=1, max_size=5))
    out: Dict[str, float] = {}
    if draw(st.booleans()):
        out[LONG] = draw(scores)
    for i in range(start, start + size):
        out[f"m{i:04d}"] = pool[i % len(pool)]
    for m in draw(st.lists(st.sampled_from(SMALL_MEMBERS[:-1]), max_size=3)):
        out[m] = draw(scores)
    return out


source = st.one_of(
    st.tuples(st.just("zset"), small_zset),
    st.tuples(st.just("zset"), big_zset()),
    st.tuples(st.just("set"), st.lists(st.sampled_from(SMALL_MEMBERS + ["m0170", "m0201"]),
                                       min_size=1, max_size=5)),
    st.tuples(st.just("missing"), st.none()),
    st.tuples(st.just("string"), st.none()),
)


def _read_back(pair: Pair, dest: str) -> None:
    """dest's pairs, and the scores ZSCORE gives bit-exactly (its reply keeps
    the sign of a zero a skiplist holds)."""
    pair.quiet("zrange", dest, 0, -1, withscores=True)
    pair.quiet("exists", dest)
    for member in PROBES:
        pair.quiet("zscore", dest, member)


def _load(pair: Pair, key: str, kind: str, content: Any) -> None:
    if kind == "zset":
        pair.zadd(key, content)
    elif kind == "set":
        pair.sadd(key, *content)
    elif kind == "string":
        pair.set(key, "x")


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(sources=st.lists(source, min_size=1, max_size=4),
       weights=st.lists(st.sampled_from(WEIGHTS), min_size=4, max_size=4),
       use_weights=st.booleans(),
       aggregate=st.sampled_from([None, "SUM", "MIN", "MAX"]),
       dest_first=st.booleans())
def test_algebra_matches_redis(pair: Pair, sources: List[Any], weights: List[float],
                               use_weights: bool, aggregate: Optional[str],
                               dest_first: bool) -> None:
    pair.flushall()
    keys = [f"{{t}}k{i}" for i in range(len(sources))]
    for key, (kind, content) in zip(keys, sources):
        _load(pair, key, kind, content)
    dest = keys[0] if dest_first else "{t}dest"   # the destination may be a source
    pair.set("{t}dest", "old")                    # overwritten, or deleted when empty
    names: Any = dict(zip(keys, weights)) if use_weights else keys
    kw = {"aggregate": aggregate} if aggregate else {}
    for command in ("zunion", "zinter"):
        pair.quiet(command, names, withscores=True, **kw)
        pair.quiet(command, names, **kw)
    pair.quiet("zdiff", keys, withscores=True)
    pair.quiet("zintercard", len(keys), keys)
    pair.quiet("zintercard", len(keys), keys, limit=3)
    for command in ("zunionstore", "zinterstore"):
        pair.quiet(command, dest, names, **kw)
        _read_back(pair, dest)
        if dest_first:                          # restore the source the store replaced
            pair.delete(dest)
            _load(pair, dest, *sources[0])
    pair.quiet("zdiffstore", dest, keys)
    _read_back(pair, dest)
    pair.check_keyspace()
