"""ZADD of a ``ZaddPacked`` mapping against real Redis 7.0: redis-py sends its
``items()`` to the server, the Engine adds the pairs from the blob in C (or
member by member where Redis's rules need it). Every reply, the scores
bit-exactly, the encodings (the Engine's through -0.0, Redis's asserted) and
the keyspace are compared: a new key over and under the listpack limits,
appends after a skiplist's tail and inserts below it, a listpack key,
duplicates (the last wins), -0.0 and fractional scores, the flags that keep
the ordinary path, and a key of another type (the error, nothing changed)."""
from __future__ import annotations

import random

import numpy as np
from differential import Pair

from fastrank.service.columns import ZaddPacked


def packed(members, scores, rows=None):
    raw = [m.encode() for m in members]
    offsets = np.cumsum([0] + [len(m) for m in raw]).astype(np.int64)
    rows = np.arange(len(raw), dtype=np.int64) if rows is None else np.array(rows, dtype=np.int64)
    return ZaddPacked(b"".join(raw), offsets, rows, np.array(scores, dtype=np.float64))


def show(pair: Pair, key: str, member: str) -> None:
    pair.zrange(key, 0, -1, withscores=True)
    pair.zcard(key)
    pair.zrank(key, member)
    pair.zadd(key, {member: -0.0}, xx=True)  # reads back 0.0 from a listpack, -0.0 from a skiplist
    pair.zscore(key, member)


def test_packed_zadds(pair: Pair, seed: int) -> None:
    rng = random.Random(seed)
    names = [f"m{i:04d}" for i in range(400)]
    pair.zadd("big", packed(names[:300], [rng.randint(-50, 50) for _ in range(300)]))
    pair.zadd("small", packed(names[:128], [float(i) for i in range(128)]))
    pair.zadd("long", packed(names[:5] + ["L" * 65], [1, 2, 3, 4, 5, 6]))
    pair.zadd("dups", packed(names[:150], [float(rng.randint(0, 9)) for _ in range(300)],
                             rows=[i % 150 for i in range(300)]))                      # the last pair wins
    pair.zadd("twice", packed(names[:200], list(range(200)) + list(range(100)),
                              rows=list(range(200)) + list(range(100))))
    pair.zadd("frac", packed(names[:200], [rng.uniform(-1, 1) for _ in range(200)]))
    pair.zadd("zero", packed(names[:200], [-0.0 if i % 2 else 0.0 for i in range(200)]))
    pair.zadd("tail", {n: i for i, n in enumerate(names[:200])})
    pair.zadd("tail", packed(names[200:], [float(200 + i) for i in range(200)]))         # after the tail
    pair.zadd("tail", packed(names[::2], [rng.uniform(0, 400) for _ in range(200)]))    # moves and inserts
    pair.zadd("lp", {"a": 1, "b": 2})
    pair.zadd("lp", packed(names[:40], [float(i) for i in range(40)]))
    pair.zadd("nx", packed(names[:200], [1.0] * 200), nx=True)
    pair.zadd("nx", packed(names[100:300], [2.0] * 200), nx=True)
    pair.zadd("ch", packed(names[:200], [1.0] * 200), ch=True)
    pair.zadd("ch", packed(names[100:300], [2.0] * 200), ch=True)
    pair.zadd("xx", packed(names[:200], [1.0] * 200), xx=True)
    pair.zadd("gt", packed(names[:200], [float(i % 3) for i in range(200)]), gt=True)
    assert pair.quiet("zadd", "empty", packed([], [])).error is not None      # redis-py's DataError
    pair.set("str", "x")
    assert "WRONGTYPE" in str(pair.quiet("zadd", "str", packed(names[:200], [1.0] * 200)).error)
    for key, encoding in (("big", b"skiplist"), ("small", b"listpack"), ("long", b"skiplist"),
                          ("dups", b"skiplist"), ("twice", b"skiplist"), ("frac", b"skiplist"),
                          ("zero", b"skiplist"), ("tail", b"skiplist"), ("lp", b"listpack"),
                          ("nx", b"skiplist"), ("ch", b"skiplist"), ("gt", b"skiplist")):
        assert pair.real.object("encoding", key) == encoding, key
        show(pair, key, "m0001")
    pair.get("str")
    pair.check_keyspace("after packed zadds")
