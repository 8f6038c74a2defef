"""Hypothesis properties of CountMinSketch and TopK against small Python models.

- CMS: a dict-of-cells model built from ``murmurhash2`` (RedisBloom 2.8's
  layout) must agree counter for counter; estimates never undercount; merge
  is the weighted sum; numpy and list paths agree; bytes round-trip.
- TopK with decay = 1 is deterministic, so a plain Python HeavyKeeper written
  from docs/compatibility.md §5 must agree with the C core reply for reply, on
  narrow sketches where buckets collide all the time.
"""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrank import CountMinSketch, TopK
from fastrank._core import murmurhash2

U32 = 2**32 - 1

items_st = st.one_of(st.binary(max_size=12), st.text(max_size=6), st.integers(-10**6, 10**6))
small_items = st.sampled_from([b"a", b"b", b"c", b"d", b"e", b"f", b"g", b"h", b"", b"\x00"])


def _enc(item) -> bytes:
    if isinstance(item, bytes):
        return item
    if isinstance(item, str):
        return item.encode()
    return str(item).encode()


# -- Count-Min Sketch ----------------------------------------------------------------

class CmsModel:
    def __init__(self, width: int, depth: int) -> None:
        self.width, self.depth = width, depth
        self.cells = [[0] * width for _ in range(depth)]
        self.count = 0

    def cols(self, item: bytes):
        return [(r, murmurhash2(item, r) % self.width) for r in range(self.depth)]

    def incrby(self, item: bytes, n: int) -> int:
        for r, c in self.cols(item):
            self.cells[r][c] = min(self.cells[r][c] + n, U32)
        self.count = (self.count + n) % 2**64
        return self.query(item)

    def query(self, item: bytes) -> int:
        return min(self.cells[r][c] for r, c in self.cols(item))


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 40), st.integers(1, 6),
       st.lists(st.tuples(items_st, st.integers(0, 2**33)), max_size=60))
def test_cms_matches_model(width, depth, ops):
    cms, model = CountMinSketch(width, depth), CmsModel(width, depth)
    got = cms.incrby([i for i, _ in ops], [n for _, n in ops])
    assert got == [model.incrby(_enc(i), n) for i, n in ops]
    assert cms.counters().tolist() == model.cells
    signed = model.count - 2**64 if model.count >= 2**63 else model.count
    assert cms.total == signed


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 30), st.integers(1, 5),
       st.lists(st.tuples(items_st, st.integers(0, 1000)), max_size=80))
def test_cms_never_undercounts(width, depth, ops):
    cms = CountMinSketch(width, depth)
    truth: dict = {}
    cms.incrby([i for i, _ in ops], [n for _, n in ops])
    for i, n in ops:
        truth[_enc(i)] = truth.get(_enc(i), 0) + n
    keys = list(truth)
    for k, est in zip(keys, cms.query(keys)):
        assert est >= truth[k]


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 20), st.integers(1, 4), st.lists(st.integers(-(2**63), 2**63 - 1), max_size=50),
       st.integers(0, 2**16))
def test_cms_numpy_path_equals_text_path(width, depth, ints, inc):
    a, b = CountMinSketch(width, depth), CountMinSketch(width, depth)
    arr = np.array(ints, dtype=np.int64)
    assert a.incrby(arr, inc).tolist() == b.incrby([str(v) for v in ints], inc)
    assert a == b
    assert a.query(arr).tolist() == b.query(ints)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 12), st.integers(1, 4),
       st.lists(st.lists(st.tuples(small_items, st.integers(0, 50)), max_size=20), min_size=1, max_size=4),
       st.lists(st.integers(-3, 3), min_size=4, max_size=4))
def test_cms_merge_is_weighted_sum_or_unchanged(width, depth, fills, weights):
    sources = []
    for fill in fills:
        s = CountMinSketch(width, depth)
        s.incrby([i for i, _ in fill], [n for _, n in fill])
        sources.append(s)
    w = weights[: len(sources)]
    dest = CountMinSketch(width, depth)
    dest.incrby([b"seed"], [7])
    before = dest.to_bytes()
    expect = sum(wk * s.counters().astype(object) for wk, s in zip(w, sources))
    total = sum(wk * s.total for wk, s in zip(w, sources))
    ok = (np.all(expect >= 0) and np.all(expect <= U32)) and total >= 0
    try:
        dest.merge(sources, w)
    except OverflowError:
        assert not ok
        assert dest.to_bytes() == before
    else:
        assert ok
        assert dest.counters().tolist() == expect.tolist()
        assert dest.total == total


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 30), st.integers(1, 5), st.lists(st.tuples(items_st, st.integers(0, U32)), max_size=30))
def test_cms_bytes_roundtrip(width, depth, ops):
    cms = CountMinSketch(width, depth)
    cms.incrby([i for i, _ in ops], [n for _, n in ops])
    again = CountMinSketch.from_bytes(cms.to_bytes())
    assert again == cms and again.info() == cms.info()


# -- TopK, decay = 1 ------------------------------------------------------------------

class TopKModel:
    """HeavyKeeper with decay 1 (every decay step succeeds), per docs/compatibility.md §5."""

    def __init__(self, k: int, width: int, depth: int) -> None:
        self.k, self.width, self.depth = k, width, depth
        self.buckets = [[[0, 0] for _ in range(width)] for _ in range(depth)]  # [fp, count]
        self.heap = [[None, 0] for _ in range(k)]  # [item, count]

    def find(self, item: bytes):
        for i in range(self.k - 1, -1, -1):
            if self.heap[i][0] == item:
                return i
        return None

    def sift_down(self, start: int) -> None:
        h, n = self.heap, self.k

        def pick(parent: int) -> int:
            child = 2 * parent + 1
            if child + 1 < n and h[child][1] > h[child + 1][1]:
                child += 1
            return child

        if 2 * start + 1 >= n:
            return
        child = pick(start)
        if h[child][1] > h[start][1]:
            return
        moving = h[start]
        while True:
            h[start] = h[child]
            start = child
            if 2 * start + 1 >= n:
                break
            child = pick(start)
            if not h[child][1] < moving[1]:
                break
        h[start] = moving

    def incrby(self, item: bytes, n: int):
        fp = murmurhash2(item, 1919)
        heap_min = self.heap[0][1]
        best = 0
        for r in range(self.depth):
            b = self.buckets[r][murmurhash2(item, r) % self.width]
            if b[1] == 0:
                b[0], b[1] = fp, n
                best = max(best, n)
            elif b[0] == fp:
                b[1] = (b[1] + n) % 2**32
                best = max(best, b[1])
            else:
                for remaining in range(n, 0, -1):
                    b[1] -= 1
                    if b[1] == 0:
                        b[0], b[1] = fp, remaining
                        best = max(best, remaining)
                        break
        if best < heap_min:
            return None
        at = self.find(item)
        if at is not None:
            self.heap[at][1] = best
            self.sift_down(at)
            return None
        gone = self.heap[0][0]
        self.heap[0] = [item, best]
        self.sift_down(0)
        return gone

    def listing(self):
        order = sorted(range(self.k), key=lambda i: -self.heap[i][1])  # stable
        out = []
        for i in order:
            if self.heap[i][1] == 0:
                break
            out.append((self.heap[i][0], self.heap[i][1]))
        return out


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 6), st.integers(1, 5), st.integers(1, 4),
       st.lists(st.tuples(small_items, st.integers(0, 6)), max_size=120))
def test_topk_decay1_matches_model(k, width, depth, ops):
    t, model = TopK(k, width, depth, 1.0, seed=0), TopKModel(k, width, depth)
    for item, n in ops:
        assert t.incrby([item], [n]) == [model.incrby(item, n)]
    assert t.list(withcount=True) == model.listing()
    probe = [b"a", b"b", b"c", b"d", b"e", b"f", b"g", b"h", b"", b"\x00", b"zz"]
    assert t.query(probe) == [model.find(p) is not None for p in probe]
    t._check()


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5), st.integers(1, 6), st.integers(1, 3), st.floats(0.5, 1.0),
       st.lists(st.tuples(small_items, st.integers(0, 20)), max_size=80), st.integers(0, 2**64 - 1))
def test_topk_invariants_and_roundtrip(k, width, depth, decay, ops, seed):
    a = TopK(k, width, depth, decay, seed=seed)
    b = TopK(k, width, depth, decay, seed=seed)
    for item, n in ops:
        a.incrby([item], [n])
    b.add_many([i for i, _ in ops], [n for _, n in ops])
    assert a == b
    a._check()
    c = TopK.from_bytes(a.to_bytes())
    assert c == a
    c.merge(b)
    c._check()
    listed = c.list(withcount=True)
    assert [n for _, n in listed] == sorted((n for _, n in listed), reverse=True)
    assert len(listed) <= k
