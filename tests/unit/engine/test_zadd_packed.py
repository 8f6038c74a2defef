"""fastrank.service.columns.ZaddPacked (members packed in one blob) and the Engine's
ZADD of it: the same replies and values as a dict of the same pairs, bad
rows refused before any change."""
from __future__ import annotations

import numpy as np
import pytest
from redis.exceptions import ResponseError

from fastrank import Engine
from fastrank.service.columns import ZaddPacked


def packed(members, scores, rows=None):
    blob = b"".join(members)
    offsets = np.cumsum([0] + [len(m) for m in members]).astype(np.int64)
    rows = np.arange(len(members), dtype=np.int64) if rows is None else np.array(rows, dtype=np.int64)
    return ZaddPacked(blob, offsets, rows, np.array(scores, dtype=np.float64))


def test_mapping_view_of_packed_members():
    p = packed([b"a", b"bb", b"\xc3\xa9"], [1.0, 2.5, -3.0], rows=[2, 0, 1])
    assert len(p) == 3 and bool(p) and not packed([], [])
    assert p.members() == [b"\xc3\xa9", b"a", b"bb"] and list(p) == p.members()
    assert list(p.items()) == [(b"\xc3\xa9", 1.0), (b"a", 2.5), (b"bb", -3.0)]
    assert p[b"a"] == 2.5
    with pytest.raises(KeyError):
        p[b"c"]
    assert repr(p) == "ZaddPacked(3 pairs)"


def test_whole_scores_are_given_as_ints():
    assert [type(s) for _, s in packed([b"a", b"b"], [1.0, -2.0]).items()] == [int, int]
    assert [s for _, s in packed([b"a", b"b"], [1.0, -0.0]).items()] == [1.0, -0.0]
    assert [type(s) for _, s in packed([b"a"], [2.0 ** 60]).items()] == [float]


def test_lengths_must_match():
    with pytest.raises(ValueError, match="2 rows but 1 scores"):
        packed([b"a", b"b"], [1.0])


@pytest.mark.parametrize("n", [3, 20, 200])
def test_engine_zadd_equals_a_dict(n):
    members = [b"m%04d" % i for i in range(n)]
    scores = [float(i % 7) for i in range(n)]
    a, b = Engine(), Engine()
    for e, mapping in ((a, packed(members, scores)), (b, dict(zip(members, scores)))):
        assert e.zadd("k", mapping) == n
        assert e.zadd("k", packed(members, [s + 10 for s in scores])
                      if e is a else {m: s + 10 for m, s in zip(members, scores)}) == 0
    assert a.zrange("k", 0, -1, withscores=True) == b.zrange("k", 0, -1, withscores=True)


def test_bad_rows_change_nothing():
    e = Engine()
    e.zadd("k", {f"m{i:03d}": i for i in range(200)})
    before = e.zrange("k", 0, -1, withscores=True)
    bad = packed([b"x%03d" % i for i in range(300)], [float(i) for i in range(300)], rows=[*range(299), 300])
    with pytest.raises(IndexError, match="packed row out of range"):
        e.zadd("k", bad)
    with pytest.raises(IndexError, match="packed row out of range"):
        e.zadd("new", bad)
    assert e.zrange("k", 0, -1, withscores=True) == before and not e.exists("new")


def test_wrong_type_is_refused():
    e = Engine()
    e.set("s", "x")
    with pytest.raises(ResponseError, match="WRONGTYPE"):
        e.zadd("s", packed([b"a%03d" % i for i in range(200)], [1.0] * 200))
    assert e.get("s") == b"x"
