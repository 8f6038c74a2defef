"""Integers are hashed as their decimal text without writing it (_decimal64.h).

add_many on a numpy integer array must hash exactly str(v).encode() (what
redis-py sends for an int); the C core builds the MurmurHash64A blocks of
that text arithmetically, so every digit count, the powers of ten and their
neighbours, the extremes and the sign are checked against the plain hash of
the text.  The C self test also checks the portable SWAR variant against
the SSE2 one on x86-64.
"""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrank import HyperLogLog
from fastrank._core import _hll_hash, _hll_hash_ints, _hll_selftest

U64_MAX = 2**64 - 1
I64_MIN, I64_MAX = -(2**63), 2**63 - 1


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
    # the C core hashes 32 integers a block: check lengths around that
    for n in (1, 31, 32, 33, 64, 65):
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
