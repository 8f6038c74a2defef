"""CountMinSketch batches split between threads (cms.c, cms.pxi).

A big ``incrby`` / ``add_many`` batch of a numpy integer array goes in
blocks, each in two phases: the threads compute the cell offsets of a share
of the block's items, then each group of rows applies the whole block
(fr_cms_par_*); where that path is not available (very deep sketches, more
than 8 row groups, or no C atomics) each worker thread gets a run of rows.
Either way every cell must see the same increments in the same order as the
one-thread run, so results, counters, saturation and the total are
identical.  These tests compare the threaded run with
``set_threads(1)`` and with item-by-item ``incrby``, check that lists of
str/bytes (never split) agree too, and that other calls on the same sketch
never see a batch half applied.
"""
from __future__ import annotations

import contextlib
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastrank
from fastrank import CountMinSketch
from fastrank import _core

U32 = 2**32 - 1
BIG = _core._CMS_PARALLEL_MIN  # the smallest batch that is split


@pytest.fixture(autouse=True)
def _restore_threads():
    before = fastrank.get_threads()
    yield
    fastrank.set_threads(before)


@contextlib.contextmanager
def split_everything():
    """Split batches of any size, so small (hypothesis) cases take the threaded path."""
    before = _core._CMS_PARALLEL_MIN
    _core._CMS_PARALLEL_MIN = 1
    try:
        yield
    finally:
        _core._CMS_PARALLEL_MIN = before


@contextlib.contextmanager
def small_blocks(block):
    """Blocks of `block` items on the two-phase path (0: the default)."""
    before = _core._CMS_PAR_BLOCK
    _core._CMS_PAR_BLOCK = block
    try:
        yield
    finally:
        _core._CMS_PAR_BLOCK = before


def run(width, depth, items, incs, threads, method="incrby", start=None):
    """(results, to_bytes, total) of one batch with `threads` threads, on a
    fresh sketch or a copy of `start`."""
    fastrank.set_threads(threads)
    cms = CountMinSketch(width, depth) if start is None else start.copy()
    got = getattr(cms, method)(items, incs)
    if isinstance(got, np.ndarray):
        got = got.tolist()
    return got, cms.to_bytes(), cms.total


def one_by_one(width, depth, items, incs, start=None):
    fastrank.set_threads(1)
    cms = CountMinSketch(width, depth) if start is None else start.copy()
    if isinstance(items, np.ndarray):
        items = items.tolist()
    if not isinstance(incs, (list, np.ndarray)):
        incs = [incs] * len(items)
    got = [cms.incrby([x], [int(n)])[0] for x, n in zip(items, list(incs))]
    return got, cms.to_bytes(), cms.total


def zipf_ints(n, seed, dtype=np.int64, signed=True):
    rng = np.random.default_rng(seed)
    raw = rng.zipf(1.1, n) % 10**12  # mostly short texts, some of 9..12 digits
    out = raw.astype(dtype)
    if signed:
        out = out * np.where(rng.random(n) < 0.3, -1, 1).astype(dtype)
    return out


# -- big batches: threaded == one thread == item by item ---------------------------

@pytest.mark.parametrize("width,depth", [(65536, 4), (2000, 7), (1, 3), (7, 2), (1024, 5)])
def test_big_int64_batch_threaded_equals_one_thread_and_item_by_item(width, depth):
    items = zipf_ints(BIG + 4321, 1)
    one = run(width, depth, items, 1, 1)
    for threads in (2, 3, 8):
        assert run(width, depth, items, 1, threads) == one
    assert one_by_one(width, depth, items, 1) == one


@pytest.mark.parametrize("threads", [2, 4])
def test_big_uint64_and_extreme_ints(threads):
    rng = np.random.default_rng(2)
    edge = np.array([0, 9, 10, 9999999, 10000000, 99999999, 100000000, 2**63 - 1, 2**63, 2**64 - 1],
                    dtype=np.uint64)
    items = np.concatenate([edge, rng.integers(0, 2**64 - 1, BIG, dtype=np.uint64), edge])
    one = run(4099, 4, items, 3, 1)
    assert run(4099, 4, items, 3, threads) == one
    signed = np.array([0, -1, -9999999, -10000000, 99999999, 100000000, -2**63, 2**63 - 1], dtype=np.int64)
    items = np.concatenate([np.tile(signed, BIG // signed.size + 1), zipf_ints(1000, 3)])
    one = run(512, 6, items, 2, 1)
    assert run(512, 6, items, 2, threads) == one
    assert one_by_one(512, 6, items, 2) == one


def test_big_str_and_bytes_batches_with_increment_arrays():
    # Lists are not split, whatever set_threads says; results must not care.
    rng = np.random.default_rng(4)
    ints = zipf_ints(BIG + 99, 5)
    words = [str(v) for v in ints.tolist()]
    words[::7] = ["ü" * (i % 30) for i in range(len(words[::7]))]  # non-ASCII, empty, > 64 bytes
    words[3::11] = [("k%d" % i).encode() * (1 + i % 40) for i in range(len(words[3::11]))]
    incs = rng.integers(0, 1000, len(words))
    one = run(30011, 4, words, incs, 1)
    for incr in (incs, incs.tolist(), incs.astype(np.uint32)):
        assert run(30011, 4, words, incr, 2) == one
    assert one_by_one(30011, 4, words, incs) == one
    assert run(30011, 4, tuple(words), incs, 3) == one


def test_threaded_saturation_near_2_32():
    # Cells start near 2**32 - 1, increments push them over in the middle of
    # the batch: every result (and the overflow marker) is as one by one.
    items = zipf_ints(BIG + 10, 6)
    rng = np.random.default_rng(7)
    cells = (U32 - rng.integers(30_000, 60_000, 97 * 4)).astype("<u4")
    header = b"FRCM" + (1).to_bytes(2, "little") + bytes(2) + (97).to_bytes(8, "little") \
        + (4).to_bytes(8, "little") + (12345).to_bytes(8, "little")
    start = CountMinSketch.from_bytes(header + cells.tobytes())
    incs = rng.integers(0, 3, items.size)
    incs[500::1000] = 2**40
    one = run(97, 4, items, incs, 1, start=start)
    assert CountMinSketch.OVERFLOW in one[0] and one[0][0] != CountMinSketch.OVERFLOW
    assert run(97, 4, items, incs, 2, start=start) == one
    assert run(97, 4, items, incs, 4, start=start) == one
    assert one_by_one(97, 4, items, incs, start=start) == one
    # the total wraps mod 2**64 and is reported signed, threaded or not
    big = np.full(items.size, 2**63 - 1, dtype=np.int64)
    assert run(97, 4, items, big, 2) == run(97, 4, items, big, 1)


def test_add_many_threaded_equals_incrby_and_depth_1_is_not_split():
    items = zipf_ints(BIG + 1, 8)
    _, cells, total = run(2048, 4, items, 1, 1)
    assert run(2048, 4, items, 1, 2, method="add_many") == (None, cells, total)
    assert run(2048, 4, [str(v) for v in items.tolist()], 1, 2, method="add_many") == (None, cells, total)
    assert run(2048, 1, items, 1, 2) == run(2048, 1, items, 1, 1)


def test_list_results_are_plain_ints():
    items = [str(v) for v in zipf_ints(BIG, 9).tolist()]
    fastrank.set_threads(2)
    got = CountMinSketch(65536, 4).incrby(items)
    assert type(got) is list and all(type(v) is int for v in got[:1000])
    fastrank.set_threads(1)
    assert got == CountMinSketch(65536, 4).incrby(items)
    cms = CountMinSketch(8, 2)
    cms.incrby(["x"], [U32 - 1])
    assert cms.incrby(["x", "x"]) == [U32, U32]
    assert cms.query(["x", "y"]) == [U32, 0]


@pytest.mark.parametrize("block", [1, 7, 1000, 4096, BIG - 1, BIG + 1])
@pytest.mark.parametrize("width,depth", [(65536, 4), (2000, 7), (7, 2), (97, 9)])
def test_block_boundaries_threaded_equals_one_thread(block, width, depth):
    # Blocks that do not divide the batch (a short last block), a batch of
    # fewer than two blocks, and blocks of single items.
    rng = np.random.default_rng(block)
    items = zipf_ints(BIG + 4321, 11)
    incs = rng.integers(0, 5, items.size)
    one = run(width, depth, items, incs, 1)
    with small_blocks(block):
        for threads in (2, 3, 8):
            assert run(width, depth, items, incs, threads) == one
            assert run(width, depth, items, incs, threads, method="add_many") == (None,) + one[1:]


@pytest.mark.parametrize("width,depth,threads", [(3, 600, 2), (50, 12, 10)])
def test_row_split_fallback_equals_one_thread(width, depth, threads):
    # Over 512 rows, or over 8 row groups: the batch is split by rows instead.
    items = zipf_ints(BIG + 17, 12)
    one = run(width, depth, items, 2, 1)
    assert run(width, depth, items, 2, threads) == one


# -- small batches forced onto the threaded path ---------------------------------------

incs_st = st.sampled_from([0, 1, 2, 7, 2**31, U32 - 1, U32, 2**63 - 1])


@settings(max_examples=120, deadline=None)
@given(st.integers(1, 50), st.integers(1, 9), st.integers(2, 5),
       st.lists(st.tuples(st.integers(-2**63, 2**63 - 1) | st.integers(-10**8, 10**8), incs_st),
                max_size=80))
def test_split_rows_equal_one_by_one(width, depth, threads, ops):
    items = np.array([i for i, _ in ops], dtype=np.int64)
    incs = np.array([n for _, n in ops], dtype=np.int64)
    with split_everything():
        got = run(width, depth, items, incs, threads)
    assert got == one_by_one(width, depth, items, incs)


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 300), st.integers(2, 8), st.integers(2, 4),
       st.lists(st.integers(-2**63, 2**63 - 1) | st.integers(-10**7, 10**8), max_size=300),
       st.sampled_from([np.int64, np.uint64]))
def test_split_rows_numpy_equal_one_thread(width, depth, threads, ints, dtype):
    if dtype is np.uint64:
        ints = [v % 2**64 for v in ints]
    items = np.array(ints, dtype=dtype)
    with split_everything():
        got = run(width, depth, items, 5, threads)
    assert got == run(width, depth, items, 5, 1)


@settings(max_examples=120, deadline=None)
@given(st.integers(1, 60), st.integers(2, 9), st.integers(2, 5), st.sampled_from([1, 2, 3, 5, 16]),
       st.lists(st.tuples(st.integers(-2**63, 2**63 - 1) | st.integers(-10**3, 10**3), incs_st),
                max_size=120),
       st.sampled_from([np.int64, np.uint64]))
def test_small_blocks_equal_one_by_one(width, depth, threads, block, ops, dtype):
    # Many block boundaries (blocks of 1 to 16 items) with repeated items,
    # saturating increments and either integer type.
    ints = [i for i, _ in ops]
    if dtype is np.uint64:
        ints = [v % 2**64 for v in ints]
    items = np.array(ints, dtype=dtype)
    incs = np.array([n for _, n in ops], dtype=np.uint64)
    with split_everything(), small_blocks(block):
        got = run(width, depth, items, incs, threads)
        assert run(width, depth, items, 3, threads) == run(width, depth, items, 3, 1)
    assert got == one_by_one(width, depth, items, incs)


# -- other calls never see a batch half applied ------------------------------------

def test_concurrent_calls_see_whole_batches():
    # Without saturation every row of the counters sums to the total, in any
    # state between whole batches.  Readers in other threads check that while
    # threaded batches run; at the end the counters equal the sequential run.
    fastrank.set_threads(2)
    width, depth = 1000, 4
    cms = CountMinSketch(width, depth)
    batches = [zipf_ints(BIG, 20 + i) for i in range(6)]
    errors = []
    stop = threading.Event()

    def reader():
        try:
            while not stop.is_set():
                raw = cms.to_bytes()
                total = int.from_bytes(raw[24:32], "little")
                rows = np.frombuffer(raw[32:], dtype="<u4").reshape(depth, width)
                assert (rows.sum(axis=1, dtype=np.uint64) == total).all()
                c, t = cms.counters(), cms.total
                assert int(c[0].sum()) <= t  # the total is read after the counters
                cms.query(batches[0][:100])
                other = CountMinSketch(width, depth)
                other.merge([cms])
                assert (other.counters().sum(axis=1) == other.total).all()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    def writer(bs):
        try:
            for b in bs:
                cms.add_many(b)
                cms.incrby([str(v) for v in b[:BIG].tolist()])
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=reader, daemon=True) for _ in range(2)]
    threads += [threading.Thread(target=writer, args=(batches[i::2],), daemon=True) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads[2:]:
        t.join(timeout=120)
    stop.set()
    for t in threads[:2]:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a call on the sketch hangs"
    assert not errors, errors[0]
    fastrank.set_threads(1)
    seq = CountMinSketch(width, depth)
    for b in batches:
        seq.add_many(b)
        seq.add_many([str(v) for v in b.tolist()])
    assert seq == cms
