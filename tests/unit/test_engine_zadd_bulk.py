"""ZADD of many members at once (the bulk insert into a skip list) answers as Redis."""
from __future__ import annotations

import random

import pytest
import redis

from fastrank import Engine


def _mapping(n, seed, zero=False):
    rnd = random.Random(seed)
    out = {f"m{i}": rnd.uniform(-1e6, 1e6) for i in range(n)}
    out[b"raw\x00bytes"] = 1.5
    if zero:
        out["z"] = 0.0
    return out


@pytest.mark.parametrize("n", [20, 127, 128, 129, 1000])
def test_new_and_existing_keys(r, n):
    first = _mapping(n, 1)
    assert r.zadd("k", first) == len(first)
    again = _mapping(n + 50, 2)                     # updates the first n, adds 50
    assert r.zadd("k", again) == 50
    assert r.zrange("k", 0, -1, withscores=True) == sorted(
        ((m.encode() if isinstance(m, str) else m, s) for m, s in {**first, **again}.items()),
        key=lambda p: (p[1], p[0]))
    assert r.zcard("k") == len({**first, **again})


def test_zero_scores_wrong_types_and_odd_values_in_a_big_zadd(r):
    r.zadd("k", _mapping(200, 3))
    assert r.zadd("k", _mapping(200, 4, zero=True)) == 1    # a zero score (maybe -0.0)
    assert r.zscore("k", "z") == 0.0
    r.set("s", "x")
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        r.zadd("s", _mapping(200, 5))
    with pytest.raises(redis.DataError):
        r.zadd("k", {**_mapping(200, 6), "b": True})
    assert r.zadd("k", {**_mapping(200, 7), "big": 10**20}) == 1
    assert r.zscore("k", "big") == 1e20


def test_a_watched_key_still_fails_its_transaction():
    r = Engine()
    r.zadd("k", _mapping(200, 8))
    with r.pipeline() as pipe:
        pipe.watch("k")
        r.zadd("k", _mapping(300, 9))
        pipe.multi()
        pipe.zcard("k")
        with pytest.raises(redis.WatchError):
            pipe.execute()
