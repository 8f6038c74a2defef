"""Lex ranges over members of different scores: client under test vs Redis 7.0.

Redis calls ZRANGEBYLEX & co. unspecified when the scores differ, but what it
does is a fixed walk over the set in (score, member) order: find a start
("first member >= min", or for the reverse commands "last member before the
first one > max" on the skip list / "last member <= max from the end" on a
listpack), then walk until the first member out of range.  A listpack does
this deterministically.  A skip list finds its start with a descent over
random node levels, which can jump past the member where a level-0 walk
stops; its answer is then level-dependent, so on skip-list keys this test
only sends the queries whose answer is the same for every level assignment
(``level_free``), and every query on listpack keys.

Each seed builds a few random zsets (random members, random scores with
ties) in both encodings and sends ZRANGEBYLEX, ZREVRANGEBYLEX, ZRANGE BYLEX
[REV] with and without LIMIT, ZLEXCOUNT and ZREMRANGEBYLEX with random
bounds; every reply is compared, and the keyspaces after the removals.
"""
from __future__ import annotations

import random
from typing import Callable, List, Optional, Tuple

from differential import Pair, steps

LONG = "L" * 65  # one byte over zset-max-listpack-value: the key is a skip list
ALPHABET = "abcdz"


def bound_test(bound: str, is_min: bool) -> Callable[[bytes], bool]:
    """The gte-min (or lte-max) test of a ``[x`` / ``(x`` bound."""
    value, exclusive = bound[1:].encode(), bound[0] == "("
    if is_min:
        return (lambda m: m > value) if exclusive else (lambda m: m >= value)
    return (lambda m: m < value) if exclusive else (lambda m: m <= value)


def gte_min(bound: str) -> Callable[[bytes], bool]:
    if bound == "-":
        return lambda m: True
    if bound == "+":
        return lambda m: False
    return bound_test(bound, True)


def lte_max(bound: str) -> Callable[[bytes], bool]:
    if bound == "+":
        return lambda m: True
    if bound == "-":
        return lambda m: False
    return bound_test(bound, False)


def level_free(members: List[bytes], lo: str, hi: str, need_first: bool,
               need_last: bool) -> bool:
    """True when a skip list's descents give a level-0 walk's answer for
    whatever node levels: no member past the level-0 stopping point could
    let a higher link jump over it."""
    ok_min, ok_max = gte_min(lo), lte_max(hi)
    if need_first:
        stop = next((i for i, m in enumerate(members) if ok_min(m)), None)
        if stop is not None and not all(ok_min(m) for m in members[stop:]):
            return False
    if need_last:
        stop = next((i for i, m in enumerate(members) if not ok_max(m)), None)
        if stop is not None and any(ok_max(m) for m in members[stop:]):
            return False
    return True


def random_bound(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.12:
        return "-"
    if r < 0.24:
        return "+"
    word = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 2)))
    return rng.choice("[(") + word


def build(pair: Pair, rng: random.Random, key: str, skiplist: bool) -> List[bytes]:
    """A random zset at key on both sides; its members in set order."""
    n = rng.randint(2, 12)
    pool = sorted({"".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 2)))
                   for _ in range(3 * n)})
    chosen = rng.sample(pool, min(n, len(pool)))
    mapping = {m: rng.randint(0, 4) for m in chosen}
    if skiplist:
        pair.zadd(key, {LONG: 0, **mapping})
        pair.zrem(key, LONG)
    else:
        pair.zadd(key, mapping)
    assert pair.real.object("encoding", key) == (b"skiplist" if skiplist else b"listpack")
    return [m for m in pair.zrange(key, 0, -1)]


def query(pair: Pair, rng: random.Random, key: str, members: List[bytes],
          skiplist: bool) -> None:
    lo, hi = random_bound(rng), random_bound(rng)
    limit: Optional[Tuple[int, int]] = None
    if rng.random() < 0.3:
        limit = (rng.randint(0, 3), rng.choice([-1, 1, 2, 5]))
    op = rng.choice(["range", "revrange", "zrange", "zrange_rev", "count"])
    first, last = op in ("range", "zrange", "count"), op in ("revrange", "zrange_rev", "count")
    if skiplist and not level_free(members, lo, hi, first, last):
        return
    start, num = limit if limit else (None, None)
    if op == "range":
        pair.zrangebylex(key, lo, hi, start=start, num=num)
    elif op == "revrange":
        pair.zrevrangebylex(key, hi, lo, start=start, num=num)
    elif op == "zrange":
        pair.zrange(key, lo, hi, bylex=True, offset=start, num=num)
    elif op == "zrange_rev":
        pair.zrange(key, hi, lo, bylex=True, desc=True, offset=start, num=num)
    else:
        pair.zlexcount(key, lo, hi)


def test_issue_example_both_encodings(pair: Pair) -> None:
    pair.zadd("lp", {"a": 1, "z": 2, "b": 3})
    pair.zadd("sl", {LONG: 0, "a": 1, "z": 2, "b": 3})
    pair.zrem("sl", LONG)
    assert pair.real.object("encoding", "lp") == b"listpack"
    assert pair.real.object("encoding", "sl") == b"skiplist"
    for key in ("lp", "sl"):
        pair.zrangebylex(key, "-", "[b")
        pair.zrange(key, "-", "[b", bylex=True)
    pair.zlexcount("lp", "-", "[b")           # level-dependent on the skip list
    pair.zrevrangebylex("lp", "[b", "-")
    pair.zremrangebylex("lp", "-", "[b")
    pair.zremrangebylex("sl", "-", "[b")
    pair.check_keyspace("after ZREMRANGEBYLEX")


def test_random_lex_queries_over_mixed_scores(pair: Pair, seed: int) -> None:
    rng = random.Random(seed)
    for round_ in range(steps(40)):
        for skiplist in (False, True):
            key = f"{'sl' if skiplist else 'lp'}{round_}"
            members = build(pair, rng, key, skiplist)
            for _ in range(12):
                query(pair, rng, key, members, skiplist)
            lo, hi = random_bound(rng), random_bound(rng)
            if not skiplist or level_free(members, lo, hi, True, False):
                pair.zremrangebylex(key, lo, hi)
                pair.zrange(key, 0, -1, withscores=True)
    pair.check_keyspace("after the removals")
