"""HyperLogLog.add_many on numpy integers with threads: byte-identical results.

A big numpy integer batch runs its sparse part in order and spreads the
dense rest over the shared pool (fastrank.set_threads).  Whatever the
thread count, the value (to_bytes, cache bytes included) and the return
value must be those of one thread and of adding the items one by one.
``fastrank._core.HLL_PART_MIN`` (the smallest part worth a thread) is
lowered in some tests so that small batches are split too.
"""
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastrank
from fastrank import HyperLogLog
from fastrank import _core

PART_MIN = _core.HLL_PART_MIN


@pytest.fixture(autouse=True)
def _restore_threads():
    before = fastrank.get_threads()
    yield
    fastrank.set_threads(before)
    _core.HLL_PART_MIN = PART_MIN


def _start(kind):
    h = HyperLogLog()
    if kind == "sparse":
        h.add_many(np.arange(300, dtype=np.int64) * 7919)
    elif kind == "dense":
        h.add_many(np.arange(20_000, dtype=np.int64) * 104729)
        assert not h.is_sparse
    elif kind == "dense-cached":
        h.add_many(np.arange(20_000, dtype=np.int64) * 104729)
        h.count()
    return h


def _run(start, arr, threads):
    fastrank.set_threads(threads)
    h = start.copy()
    rc = h.add_many(arr)
    return rc, h.to_bytes()


def _one_by_one(start, arr):
    h = start.copy()
    rc = False
    for v in arr.tolist():
        rc = h.add(v) or rc
    return rc, h.to_bytes()


def _values(dtype, n, seed):
    rng = np.random.default_rng(seed)
    if dtype == np.int64:
        return rng.integers(-(2**63), 2**63 - 1, size=n, dtype=np.int64, endpoint=True)
    return rng.integers(0, 2**64 - 1, size=n, dtype=np.uint64, endpoint=True)


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
@pytest.mark.parametrize("kind", ["fresh", "sparse", "dense", "dense-cached"])
@pytest.mark.parametrize("n", [1, 1663, 1700, 2 * PART_MIN - 1, 2 * PART_MIN, 2 * PART_MIN + 1700, 3 * PART_MIN + 5])
def test_threads_equal_one_thread_equal_one_by_one(dtype, kind, n):
    start = _start(kind)
    arr = _values(dtype, n, n)
    one = _run(start, arr, 1)
    assert _run(start, arr, 2) == one
    assert _run(start, arr, 4) == one
    if n < 20_000 or kind == "dense":
        assert _one_by_one(start, arr) == one


@pytest.mark.parametrize("threads", [2, 3])
def test_nothing_new_keeps_the_cache_valid(threads):
    _core.HLL_PART_MIN = 64
    h = _start("dense-cached")
    before = h.to_bytes()
    fastrank.set_threads(threads)
    assert h.add_many(np.arange(20_000, dtype=np.int64) * 104729) is False
    assert h.to_bytes() == before
    assert h.add_many(np.arange(10**12, 10**12 + 5000, dtype=np.int64)) is True
    assert h.to_bytes()[15] & 0x80


@settings(max_examples=60, deadline=None)
@given(
    kind=st.sampled_from(["fresh", "sparse", "dense"]),
    signed=st.booleans(),
    n=st.integers(1, 4000),
    seed=st.integers(0, 2**32 - 1),
    threads=st.integers(2, 5),
    part_min=st.integers(1, 700),
    small=st.booleans(),
)
def test_split_anywhere(kind, signed, n, seed, threads, part_min, small):
    """Tiny parts: the split points fall anywhere, also inside the sparse
    part and right at the promotion."""
    start = _start(kind)
    arr = _values(np.int64 if signed else np.uint64, n, seed)
    if small:  # repeats and short texts: many "no change" items
        arr = arr % 5000
    _core.HLL_PART_MIN = part_min
    one = _run(start, arr, 1)
    assert _run(start, arr, threads) == one
    assert _one_by_one(start, arr) == one


def test_other_integer_dtypes_and_views_use_the_same_path():
    _core.HLL_PART_MIN = 256
    base = np.arange(-30_000, 30_000, 3)
    for arr in (base.astype(np.int32), base[::2], base.astype(np.int16)[::-1]):
        fastrank.set_threads(1)
        a = HyperLogLog()
        ra = a.add_many(arr)
        fastrank.set_threads(2)
        b = HyperLogLog()
        assert b.add_many(arr) == ra
        assert a == b


def test_concurrent_use_of_one_object():
    """Two threads add big batches to one HyperLogLog while a third reads it:
    every read sees a valid value and the end result is the union."""
    _core.HLL_PART_MIN = 1024
    fastrank.set_threads(2)
    h = _start("dense")
    arrs = [_values(np.uint64, 200_000, s) for s in (1, 2)]
    want = _start("dense")
    fastrank.set_threads(1)
    for a in arrs:
        want.add_many(a)
    fastrank.set_threads(2)
    errors = []
    stop = threading.Event()

    def writer(a):
        try:
            for k in range(3):
                h.add_many(a[k::3])
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def reader():
        try:
            while not stop.is_set():
                HyperLogLog.from_bytes(h.to_bytes())._check()
                h.count()
        except Exception as exc:  # pragma: no cover
            errors.append(exc)

    ts = [threading.Thread(target=writer, args=(a,)) for a in arrs]
    r = threading.Thread(target=reader)
    r.start()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    stop.set()
    r.join()
    assert not errors
    assert (h._registers() == want._registers()).all()
    assert h.count() == want.count()


def test_parallel_path_is_taken(monkeypatch):
    from fastrank import _threads

    calls = []
    real = _threads.run_parallel

    def counting(fn, args):
        calls.append([(a[2], a[3]) for a in args])
        return real(fn, args)

    monkeypatch.setattr(_threads, "run_parallel", counting)
    arr = _values(np.uint64, 2 * PART_MIN + 1700, 7)
    fastrank.set_threads(1)
    HyperLogLog().add_many(arr)
    assert calls == []
    fastrank.set_threads(2)
    h = HyperLogLog()
    h.add_many(arr)
    (parts,) = calls
    # the sparse part ran first, in blocks of 32; the parts cover the rest
    assert len(parts) == 2 and parts[0][0] % 32 == 0 and 1600 < parts[0][0] < 1800
    assert parts[0][1] == parts[1][0] and parts[1][1] == len(arr)


def test_other_threads_never_see_a_half_done_batch():
    """From before its sparse part until the maxima are applied, the object
    is busy: a reader sees the value before the batch or after it."""
    fastrank.set_threads(2)
    arr = _values(np.uint64, 1_000_000, 11)
    for kind in ("fresh", "dense"):
        h = _start(kind)
        before = h.to_bytes()
        after = _start(kind)
        after.add_many(arr)
        after = after.to_bytes()
        seen = set()
        done = threading.Event()

        def reader():
            while not done.is_set():
                seen.add(h.to_bytes())

        r = threading.Thread(target=reader)
        r.start()
        try:
            for _ in range(3):
                h = _start(kind)
                h.add_many(arr)
        finally:
            done.set()
            r.join()
        assert seen <= {before, after}
