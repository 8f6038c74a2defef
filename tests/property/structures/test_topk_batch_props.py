"""Hypothesis: TopK.add_many on one thread, on two threads, and item by item
with TopK.add give the same sketch (the contract of the batch paths).

Every path draws the same coins (one per row, in pairs: see "Coins" in
topk.c), so equality is exact -- buckets, heap, generator state (to_bytes)
and every reply -- for decay 1 and decay < 1 alike.  The two-thread path
normally starts at 65536 items; the tests lower that bound so that small
streams take it, over several chunks (2048 items each) of its ring.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastrank
from fastrank import TopK, _core, _threads

shapes = st.tuples(st.integers(1, 12), st.integers(1, 20), st.integers(1, 10),
                   st.sampled_from([0.5, 0.9, 0.95, 0.99, 0.999, 1.0]))


@pytest.fixture(autouse=True)
def _restore_threads():
    before, low = _threads._threads, _core._TOPK_TWO_THREADS_MIN
    yield
    _threads._threads, _core._TOPK_TWO_THREADS_MIN = before, low


def _state(t: TopK, probe):
    return (t.to_bytes(), t.list(withcount=True), t.count(probe), t.query(probe), t.info())


def _paths(shape, seed, items, texts):
    """The sketch after add_many on 1 and 2 threads, and after add per item."""
    out = []
    for threads in (1, 2):
        fastrank.set_threads(threads)
        t = TopK(*shape, seed=seed)
        t.add_many(items)
        out.append(t)
    t = TopK(*shape, seed=seed)
    for text in texts:
        t.add([text])
    out.append(t)
    return out


@settings(max_examples=40, deadline=None)
@given(shapes, st.integers(0, 2**64 - 1), st.integers(1, 9000), st.integers(1, 400),
       st.sampled_from(["int64", "uint64"]), st.integers(0, 2**32))
def test_add_many_equals_add_item_by_item(shape, seed, n, ids, dtype, stream_seed):
    _core._TOPK_TWO_THREADS_MIN = 1
    rng = np.random.default_rng(stream_seed)
    values = rng.zipf(1.3, n) % ids
    if dtype == "int64":
        items = (values - ids // 3).astype(np.int64)
    else:
        items = values.astype(np.uint64) + np.uint64(2**64 - 200)
    texts = [str(v) for v in items.tolist()]
    probe = texts[:20] + ["-1", "nope"]
    one, two, single = _paths(shape, seed, items, texts)
    assert _state(one, probe) == _state(two, probe) == _state(single, probe)
    one._check()


@settings(max_examples=30, deadline=None)
@given(shapes, st.integers(0, 2**64 - 1),
       st.lists(st.one_of(st.binary(max_size=70), st.text(max_size=8)), max_size=300))
def test_add_many_of_strings_equals_add(shape, seed, items):
    a, b = TopK(*shape, seed=seed), TopK(*shape, seed=seed)
    a.add_many(items)
    for item in items:
        b.add([item])
    probe = items[:10] + [b"zz"]
    assert _state(a, probe) == _state(b, probe)


@settings(max_examples=20, deadline=None)
@given(shapes, st.integers(0, 2**64 - 1), st.lists(st.integers(0, 40), min_size=1, max_size=400))
def test_mixed_increments_equal_incrby(shape, seed, incs):
    rng = np.random.default_rng(len(incs))
    items = rng.integers(0, 50, len(incs))
    a, b = TopK(*shape, seed=seed), TopK(*shape, seed=seed)
    a.add_many(items, incs)
    b.incrby([str(v) for v in items.tolist()], incs)
    assert a == b


def test_two_threads_on_a_big_stream_by_default_bound(monkeypatch):
    # 200,000 items: above the usual bound, many chunks on two threads
    calls = []
    run = _threads.run_parallel
    monkeypatch.setattr(_threads, "run_parallel", lambda fn, args: calls.append(len(args)) or run(fn, args))
    rng = np.random.default_rng(8)
    items = rng.zipf(1.1, 200_000) % 100_000
    fastrank.set_threads(1)
    a = TopK(10, 8, 7, 0.9, seed=4)
    a.add_many(items)
    assert calls == []
    fastrank.set_threads(2)
    b = TopK(10, 8, 7, 0.9, seed=4)
    b.add_many(items)
    assert calls == [2]
    assert a == b
    assert a.list(withcount=True) == b.list(withcount=True)
    c = TopK(10, 8, 7, 0.9, seed=4)
    c.add_many(items, 1)  # a scalar increment of 1 takes the same path
    d = TopK(10, 8, 7, 0.9, seed=4)
    d.add_many(items, np.ones(items.size, dtype=np.int64))  # an array does not
    assert calls == [2, 2]
    assert a == c == d
