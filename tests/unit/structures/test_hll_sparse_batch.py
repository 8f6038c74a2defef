"""Batch adds on sparse values: the walk shortcuts (sparse marks) change nothing.

The numpy integer and 'S' batch paths remember where earlier walks over the
sparse opcodes passed every 256th register and start later walks there.
Their bytes, return values and errors must equal those of the plain path
(a Python list, one element at a time through hll_add), from any sparse
starting value: fresh, partly filled, with small hll-sparse-max-bytes, and
corrupt.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrank import HyperLogLog
from fastrank._core import CorruptHyperLogLog, pfadd_bytes


def _plain(start, items):
    """The reference: a list of bytes, added one by one without marks."""
    h = start.copy()
    rc = h.add_many([bytes(x) for x in items])
    return rc, h.to_bytes()


def _as_bytes(arr):
    return [str(int(v)).encode() for v in arr] if arr.dtype.kind in "iu" else list(arr)


@settings(max_examples=150, deadline=None)
@given(
    pre=st.integers(0, 1500),
    n=st.integers(1, 2500),
    seed=st.integers(0, 2**32 - 1),
    smax=st.sampled_from([3000, 600, 200, 10_000]),
    kind=st.sampled_from(["u64", "i64", "small", "S"]),
)
def test_batch_equals_one_by_one(pre, n, seed, smax, kind):
    rng = np.random.default_rng(seed)
    start = HyperLogLog(sparse_max_bytes=smax)
    start.add_many([b"pre%d" % i for i in rng.integers(0, 10**6, size=pre)])
    if kind == "u64":
        arr = rng.integers(0, 2**64 - 1, size=n, dtype=np.uint64, endpoint=True)
    elif kind == "i64":
        arr = rng.integers(-(2**63), 2**63 - 1, size=n, dtype=np.int64, endpoint=True)
    elif kind == "small":  # many repeats: "already set" walks between updates
        arr = rng.integers(0, 300, size=n, dtype=np.int64)
    else:
        arr = np.array([b"s%d" % v for v in rng.integers(0, 10**5, size=n)], dtype="S")
    want = _plain(start, _as_bytes(arr))
    h = start.copy()
    assert (h.add_many(arr), h.to_bytes()) == want


@pytest.mark.parametrize("cut", [1, 2, 5, 40])
def test_corrupt_sparse_value_fails_at_the_same_element(cut):
    base = HyperLogLog()
    base.add_many(np.arange(0, 3000, 7))
    raw = base.to_bytes()
    assert base.is_sparse
    bad = raw[:-cut]  # opcodes no longer reach register 16383
    items = np.arange(10**6, 10**6 + 3000, dtype=np.int64)
    with pytest.raises(CorruptHyperLogLog) as batch:
        pfadd_bytes(bad, items)
    with pytest.raises(CorruptHyperLogLog) as plain:
        pfadd_bytes(bad, _as_bytes(items))
    assert batch.value.value == plain.value.value
    sarr = np.array(_as_bytes(items), dtype="S")
    with pytest.raises(CorruptHyperLogLog) as sbatch:
        pfadd_bytes(bad, sarr)
    assert sbatch.value.value == plain.value.value
