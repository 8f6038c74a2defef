"""Large ZADDs (the Engine's bulk loads) against real Redis 7.0.

A plain ZADD of more than 128 pairs at a missing key is built by the Engine
in one bulk load, and a batch of 64+ pairs whose scores are all at or above
a skiplist's highest is appended after its tail. Redis builds both member by
member; these tests compare every reply, the scores bit-exactly, the
encodings OBJECT ENCODING reports and the keyspace: duplicates in one call
(the last wins), listpack limits (128 members, 64 bytes), -0.0, ties at the
tail score, members that already exist, and the flags that keep the
ordinary path. The Engine has no OBJECT command: the encoding is compared
through -0.0 (a listpack stores it as 0), Redis's own is asserted.
"""
from __future__ import annotations

import random

from differential import Pair

from fastrank.service.columns import ZaddColumns

LONG = "L" * 65


def show(pair: Pair, key: str) -> None:
    """The key's pairs, then its encoding seen through -0.0: an update of an
    existing member to -0.0 (XX: nothing is added, nothing converts) reads
    back 0.0 from a listpack and -0.0 from a skiplist."""
    pair.zrange(key, 0, -1, withscores=True)
    pair.zcard(key)
    pair.zrank(key, "m0000")
    pair.zrevrank(key, "m0000")
    pair.zadd(key, {"m0000": -0.0}, xx=True)
    pair.zscore(key, "m0000")


def test_new_key_bulk_loads(pair: Pair, seed: int) -> None:
    rng = random.Random(seed)
    pair.zadd("big", {f"m{i:04d}": rng.randint(-50, 50) for i in range(500)})
    dup = [(f"m{rng.randint(0, 99):04d}", float(rng.randint(1, 9))) for _ in range(300)]
    pair.execute_command("ZADD", "dup", *[x for m, s in dup for x in (s, m)])  # <= 100 distinct: listpack
    many = [(f"m{rng.randint(0, 399):04d}", rng.uniform(-1, 1)) for _ in range(600)]
    pair.execute_command("ZADD", "many", *[x for m, s in many for x in (repr(s), m)])  # last wins
    pair.zadd("exact129", {f"m{i:04d}": i + 1 for i in range(129)})
    pair.zadd("exact128", {f"m{i:04d}": i + 1 for i in range(128)})
    pair.zadd("longlate", {**{f"m{i:04d}": i + 1 for i in range(100)}, LONG: 7, "z": 1})
    pair.execute_command("ZADD", "longdup", *[x for i in range(130) for x in (i % 5 + 1, "m%04d" % (i % 5))],
                         1, LONG)
    pair.zadd("zeros", {f"m{i:04d}": (-0.0 if i % 3 else i) for i in range(200)})  # -0.0 keeps the old path
    pair.zadd("plus0", {f"m{i:04d}": (0.0 if i % 3 else i) for i in range(200)})   # +0.0 takes the bulk one
    pair.execute_command("ZADD", "dup0", *[x for i in range(300) for x in (("0", "-0")[i // 150], f"m{i % 150:04d}")])
    pair.zadd("inf", {f"m{i:04d}": (float("inf") if i == 7 else i) for i in range(200)})
    pair.zadd("nx", {f"m{i:04d}": i for i in range(200)}, nx=True)
    pair.zadd("ch", {f"m{i:04d}": i for i in range(200)}, ch=True)
    pair.zadd("xx", {f"m{i:04d}": i for i in range(200)}, xx=True)
    for key, encoding in (("big", b"skiplist"), ("dup", b"listpack"), ("many", b"skiplist"),
                          ("exact129", b"skiplist"), ("exact128", b"listpack"), ("longlate", b"skiplist"),
                          ("longdup", b"skiplist"), ("zeros", b"skiplist"), ("plus0", b"skiplist"),
                          ("dup0", b"skiplist"), ("inf", b"skiplist"),
                          ("nx", b"skiplist"), ("ch", b"skiplist")):
        assert pair.real.object("encoding", key) == encoding, key
        show(pair, key)
    pair.exists("xx")
    pair.check_keyspace("after bulk loads")


def test_batches_from_the_tail(pair: Pair, seed: int) -> None:
    rng = random.Random(seed * 31 + 7)
    pair.zadd("t", {f"m{i:04d}": float(i) for i in range(1000)})
    top, fresh = 999.0, 1000
    for round_ in range(12):
        size = rng.choice([64, 65, 100, 300])
        batch: dict = {}
        for _ in range(size):
            if rng.random() < 0.15:             # an existing member raised to the tail or above
                batch[f"m{rng.randint(0, fresh - 1):04d}"] = top + rng.choice([0.0, 1.0, 2.5])
            else:
                batch[f"m{fresh:04d}"] = top + rng.choice([0.0, 0.0, 1.0, 3.0])  # ties at the tail
                fresh += 1
        if round_ % 3 == 2:                      # a tie at the old tail score with a smaller member
            batch["a-small"] = top
        if round_ % 2:
            pair.zadd("t", batch)
        else:
            pair.execute_command("ZADD", "t", *[x for m, s in batch.items() for x in (repr(s), m)])
        top = max([top, *batch.values()])
        pair.zscore("t", f"m{fresh - 1:04d}")
        pair.zrange("t", -5, -1, withscores=True)
        pair.zrank("t", "a-small")
    show(pair, "t")
    pair.zadd("t", {f"m{i:04d}": top for i in range(200)})       # all existing, all tied at the top
    pair.zadd("t", {f"n{i:04d}": top + 1 for i in range(200)}, ch=True)
    pair.zadd("t", {f"o{i:04d}": top - 1 for i in range(200)})   # one below the top: ordinary path
    show(pair, "t")
    pair.zadd("z0", {f"m{i:04d}": -float(i) for i in range(300)})
    pair.zadd("z0", {**{f"m{i:04d}": 0.0 for i in range(0, 300, 7)}, **{f"n{i:04d}": 0.0 for i in range(100)}})
    pair.zadd("z0", {f"m{i:04d}": -0.0 for i in range(0, 300, 5)})         # -0.0 over 0.0: no change
    pair.zadd("z0", {f"p{i:04d}": 0.0 for i in range(100)})               # ties at the top score 0.0
    show(pair, "z0")
    pair.check_keyspace("after tail batches")


def test_zadd_columns_mapping(pair: Pair) -> None:
    """A ZaddColumns mapping: redis-py reads its items(), the Engine its two lists."""
    big = ZaddColumns([f"m{i:04d}".encode() for i in range(300)], [i // 3 for i in range(300)])
    pair.zadd("cols", big)
    pair.zadd("cols", ZaddColumns([f"n{i:04d}" for i in range(100)], [1000 + i for i in range(100)]))
    pair.zadd("cols", ZaddColumns([b"a", 7, "é", b"a"], [1.5, -2, 3, 4.25]))   # a repeated member: the last wins
    show(pair, "cols")
    pair.zadd("small", ZaddColumns(["x", "y"], [float("inf"), float("-inf")]))
    pair.quiet("zadd", "small", ZaddColumns(["x"], ["abc"]))                 # refused by the server
    pair.quiet("zadd", "small", ZaddColumns(["x"], [float("nan")]))
    pair.quiet("zadd", "small", ZaddColumns([], []))                         # refused by redis-py
    pair.zadd("small", ZaddColumns(["x", "z"], [1, 2]), nx=True, ch=True)
    pair.zadd("small", ZaddColumns(["x"], [5]), incr=True)
    show(pair, "small")
    pair.check_keyspace("after ZaddColumns")
