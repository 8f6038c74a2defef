"""Integers are hashed as their decimal text without writing it (decimal_text_hash.h).

add_many on a numpy integer array must hash exactly str(v).encode() (what
redis-py sends for an int); the C core builds the MurmurHash64A blocks of
that text arithmetically, so every digit count, the powers of ten and their
neighbours, the extremes and the sign are checked against the plain hash of
the text.  The C self test also checks the portable SWAR variant against
the SSE2 one on x86-64.

Every test runs twice: with the AVX2 path (when the CPU has it) and with
it switched off (the SSE2 path), so both are held to the same answers.
The last tests go through the AVX2 pipeline of long dense batches
(fr_dec_stream_avx2): blocks of 64 integers, whole-block fast path when
every text is 17-20 bytes long, a short last block.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastrank
from fastrank import HyperLogLog
from fastrank._core import _hll_hash, _hll_hash_ints, _hll_int_simd, _hll_selftest

U64_MAX = 2**64 - 1
I64_MIN, I64_MAX = -(2**63), 2**63 - 1


@pytest.fixture(scope="module", params=[1, 0], ids=["avx2-if-present", "sse2"], autouse=True)
def int_path(request):
    _hll_int_simd(request.param)
    yield request.param
    _hll_int_simd(1)


def _want(values):
    return [_hll_hash(str(v).encode())[0] for v in values]


def _edge_values():
    vals = {0, 1, U64_MAX, I64_MAX, 2**63, 2**32 - 1, 2**32}
    for d in range(20):
        p = 10**d
        vals.update({p - 1, p, p + 1, 2 * p, 9 * p})
        for k in range(1, 20):  # a value of every digit count with every leading digit
            vals.add(int(str(k % 9 + 1) * (d + 1)))
    return sorted(v for v in vals if 0 <= v <= U64_MAX)


def test_c_selftest_covers_both_variants():
    assert _hll_selftest() == 0


def test_uint64_edges_and_every_digit_count():
    vals = _edge_values()
    got = _hll_hash_ints(np.array(vals, dtype=np.uint64))
    assert [int(x) for x in got] == _want(vals)
    assert {len(str(v)) for v in vals} == set(range(1, 21))


def test_int64_edges_both_signs():
    vals = sorted({v for v in _edge_values() if v <= I64_MAX} | {-v for v in _edge_values() if v <= 2**63})
    assert I64_MIN in vals and -1 in vals and 0 in vals
    got = _hll_hash_ints(np.array(vals, dtype=np.int64))
    assert [int(x) for x in got] == _want(vals)


def test_block_tails():
    # the C core hashes 64 integers a block, 4 and 16 at a time: check lengths around those
    for n in (1, 3, 4, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129):
        vals = list(range(10**9 - n, 10**9))
        assert [int(x) for x in _hll_hash_ints(np.array(vals, dtype=np.uint64))] == _want(vals)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, U64_MAX), min_size=1, max_size=70))
def test_random_uint64(vals):
    assert [int(x) for x in _hll_hash_ints(np.array(vals, dtype=np.uint64))] == _want(vals)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(I64_MIN, I64_MAX), min_size=1, max_size=70))
def test_random_int64_and_add_many_equals_text(vals):
    assert [int(x) for x in _hll_hash_ints(np.array(vals, dtype=np.int64))] == _want(vals)
    a, b = HyperLogLog(), HyperLogLog()
    assert a.add_many(np.array(vals, dtype=np.int64)) == b.add_many([str(v).encode() for v in vals])
    assert a.to_bytes() == b.to_bytes()


def _dense():
    h = HyperLogLog()
    h.add_many(np.arange(1, 4001, dtype=np.uint64) * 7919)
    assert not h.is_sparse
    return h


def _mixed_values(rng, n, kind, signed):
    """n integers whose decimal texts have the lengths `kind` asks for."""
    if kind == "long":        # 17-20 byte texts: the whole-block fast path
        lo = 10**16
        v = rng.integers(lo, 2**63, size=n, dtype=np.int64 if signed else np.uint64)
    elif kind == "short":     # at most 8 digits: one block or only a tail
        v = rng.integers(0, 10**8, size=n, dtype=np.uint64)
    else:                     # every digit count
        digits = rng.integers(1, 20, size=n)
        v = (rng.random(n) * (10.0 ** digits)).astype(np.uint64)
    if kind == "long_with_breaks":
        v = rng.integers(10**16, 2**63, size=n, dtype=np.uint64)
        v[rng.integers(0, n, size=max(1, n // 500))] = rng.integers(0, 10**6)
    v = v.astype(np.int64) if signed else v.astype(np.uint64)
    if signed:
        flip = rng.random(n) < 0.5
        v[flip] = -v[flip]
    return v


@settings(max_examples=25, deadline=None)
@given(n=st.integers(16384, 30000), seed=st.integers(0, 2**32 - 1),
       kind=st.sampled_from(["long", "long_with_breaks", "short", "mixed"]), signed=st.booleans())
def test_dense_batch_equals_texts(n, seed, kind, signed):
    # a dense HLL and >= 16384 integers: the batch goes through hll_int_max (the pipeline)
    vals = _mixed_values(np.random.default_rng(seed), n, kind, signed)
    old = fastrank.get_threads()
    fastrank.set_threads(1)
    try:
        a, b = _dense(), _dense()
        assert a.add_many(vals) == b.add_many([str(int(v)).encode() for v in vals])
    finally:
        fastrank.set_threads(old)
    assert a.to_bytes() == b.to_bytes()


def test_threaded_batch_equals_other_path(int_path):
    # the threaded dense path splits the batch into parts, each through hll_int_max
    rng = np.random.default_rng(7)
    for kind in ("long", "long_with_breaks", "mixed"):
        for signed in (False, True):
            vals = _mixed_values(rng, 200_003, kind, signed)
            a = _dense()
            a.add_many(vals)
            _hll_int_simd(1 - int_path)
            try:
                b = _dense()
                b.add_many(vals)
            finally:
                _hll_int_simd(int_path)
            assert a.to_bytes() == b.to_bytes(), (kind, signed)
