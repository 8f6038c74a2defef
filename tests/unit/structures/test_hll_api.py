"""fastrank.HyperLogLog: the Python API, numpy paths, hostile strings (no server).

Expected errors for hostile strings are the replies the real Redis 7.0.15
gives (tests/compat/test_hll_redis.py checks the same strings against it).
"""
import copy
import pickle
import random

import numpy as np
import pytest

from fastrank import HyperLogLog
from fastrank._core import (
    HLL_CORRUPTED_TEXT,
    HLL_NOT_VALID_TEXT,
    CorruptHyperLogLog,
    HyperLogLogError,
    NotAHyperLogLog,
    pfadd_bytes,
    pfcount_bytes,
    pfcount_union_bytes,
    pfmerge_bytes,
)

EMPTY_CREATED = bytes.fromhex("48594c4c0100000000000000000000807fff")
HEADER = b"HYLL\x01\x00\x00\x00" + bytes(7) + b"\x80"


def test_new_is_what_pfadd_creates():
    h = HyperLogLog()
    assert h.to_bytes() == EMPTY_CREATED
    assert len(h) == 18 and h.is_sparse
    assert h.count() == 0
    assert h.to_bytes() == EMPTY_CREATED[:15] + b"\x00" + EMPTY_CREATED[16:]


def test_add_reports_change_and_marks_cache_stale():
    h = HyperLogLog()
    assert h.add(b"a") is True
    assert h.add(b"a") is False
    assert h.count() == 1
    assert h.to_bytes()[15] & 0x80 == 0
    assert h.add(b"a") is False
    assert h.to_bytes()[15] & 0x80 == 0     # unchanged: cache stays valid
    assert h.add(b"b") is True
    assert h.to_bytes()[8:16] == bytes([1, 0, 0, 0, 0, 0, 0, 0x80])  # stale 1 kept


def test_member_encoding_as_redis_py():
    a, b = HyperLogLog(), HyperLogLog()
    a.add_many(["é", 12, -7, 10**20, 1.5, bytearray(b"x"), memoryview(b"y")])
    b.add_many(["é".encode(), b"12", b"-7", b"100000000000000000000", b"1.5", b"x", b"y"])
    assert a == b
    for bad in (True, None, object(), np.int64(3)):
        with pytest.raises(TypeError):
            HyperLogLog().add(bad)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                   np.uint32, np.uint64])
def test_numpy_integers_equal_decimal_text(dtype):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(1)
    arr = rng.integers(info.min, info.max, size=3000, dtype=dtype, endpoint=True)
    arr[:2] = [info.min, info.max]
    a, b = HyperLogLog(), HyperLogLog()
    assert a.add_many(arr) == b.add_many([str(int(x)).encode() for x in arr])
    assert a == b


def test_numpy_bytes_and_str_arrays():
    items = [b"", b"a", b"abc", b"a\x00b", b"long-item-%d" % 7]
    arr = np.array(items, dtype="S")
    a, b = HyperLogLog(), HyperLogLog()
    a.add_many(arr)
    b.add_many([bytes(x) for x in arr])           # numpy strips the NUL padding
    assert a == b
    c, d = HyperLogLog(), HyperLogLog()
    c.add_many(np.array(["x", "é"]))
    d.add_many(["x", "é"])
    assert c == d
    e = HyperLogLog()
    e.add_many(np.zeros(0, dtype=np.int64))
    e.add_many(np.zeros(3, dtype="S0"))
    f = HyperLogLog()
    f.add(b"")
    assert e == f
    with pytest.raises(TypeError):
        HyperLogLog().add_many(np.zeros(3, dtype=np.float64))
    with pytest.raises(ValueError):
        HyperLogLog().add_many(np.zeros((2, 2), dtype=np.int64))
    # non-contiguous arrays are handled
    g, k = HyperLogLog(), HyperLogLog()
    g.add_many(np.arange(100)[::3])
    k.add_many(list(range(0, 100, 3)))
    assert g == k


def test_promotion_threshold_and_config():
    h = HyperLogLog()
    h.add_many([b"item:%d" % i for i in range(1670)])
    assert h.is_sparse and len(h) == 2999
    h.add(b"item:1670")
    assert not h.is_sparse and len(h) == 12304
    small = HyperLogLog(sparse_max_bytes=100)
    small.add_many([b"item:%d" % i for i in range(40)])
    assert not small.is_sparse
    big = HyperLogLog(sparse_max_bytes=100000)
    big.add_many([b"item:%d" % i for i in range(5000)])
    assert big.is_sparse
    assert big.count() == 5052 and big._registers().tolist() == _dense_of(5000)
    with pytest.raises(ValueError):
        HyperLogLog(sparse_max_bytes=-1)


def _dense_of(n):
    h = HyperLogLog(sparse_max_bytes=0)
    h.add_many([b"item:%d" % i for i in range(n)])
    assert not h.is_sparse or n == 0
    return h._registers().tolist()


def test_copy_pickle_eq():
    h = HyperLogLog(sparse_max_bytes=500)
    h.add_many(range(100))
    for c in (h.copy(), copy.copy(h), copy.deepcopy(h), pickle.loads(pickle.dumps(h))):
        assert c == h and c is not h and c.sparse_max_bytes == 500
        c.add("new")
        assert c != h
    assert repr(h).startswith("<HyperLogLog sparse")
    with pytest.raises(TypeError):
        hash(h)


def test_merge_rules():
    a, b = HyperLogLog(), HyperLogLog()
    a.add_many(["a", "b"])
    b.add("c")
    m = HyperLogLog()
    m.merge(a, b.to_bytes(), None)
    ref = HyperLogLog()
    ref.add_many(["a", "b", "c"])
    assert m == ref and m.is_sparse
    dense = HyperLogLog(sparse_max_bytes=0)
    dense.add("z")
    m.merge(dense)
    assert not m.is_sparse and m.count() == 4
    # nothing changes when an input is invalid
    before = a.to_bytes()
    with pytest.raises(CorruptHyperLogLog):
        a.merge(b, HEADER + b"\x7f\xfe")
    with pytest.raises(NotAHyperLogLog):
        a.merge(b"nope")
    with pytest.raises(TypeError):
        a.merge(3)
    assert a.to_bytes() == before


def test_union_count():
    hs = []
    for k in range(4):
        h = HyperLogLog()
        h.add_many(np.arange(k * 1000, k * 1000 + 2000))
        hs.append(h)
    all_ = HyperLogLog()
    all_.add_many(np.arange(5000))
    before = [h.to_bytes() for h in hs]
    assert HyperLogLog.union_count(*hs) == all_.count()
    assert [h.to_bytes() for h in hs] == before      # no cache touched
    assert HyperLogLog.union_count() == 0
    assert pfcount_union_bytes([hs[0].to_bytes(), None]) == HyperLogLog.union_count(hs[0])


HOSTILE = {
    # name: (bytes, error of from_bytes / PFCOUNT, error of PFADD "a")
    "empty": (b"", NotAHyperLogLog, NotAHyperLogLog),
    "15 bytes": (HEADER[:15], NotAHyperLogLog, NotAHyperLogLog),
    "bad magic": (b"HYLX" + HEADER[4:] + b"\x7f\xff", NotAHyperLogLog, NotAHyperLogLog),
    "encoding 2": (b"HYLL\x02" + HEADER[5:] + b"\x7f\xff", NotAHyperLogLog, NotAHyperLogLog),
    "dense short": (b"HYLL\x00" + HEADER[5:] + bytes(12287), NotAHyperLogLog, NotAHyperLogLog),
    "dense long": (b"HYLL\x00" + HEADER[5:] + bytes(12289), NotAHyperLogLog, NotAHyperLogLog),
    "header only": (HEADER, CorruptHyperLogLog, CorruptHyperLogLog),
    "lying short": (HEADER + b"\x7f\xfe", CorruptHyperLogLog, None),   # 'a' is register 12711
    "lying long": (HEADER + b"\x7f\xff\x00", CorruptHyperLogLog, None),  # lazy: the add works
    "overrun": (HEADER + b"\x7f\xfe\x83", CorruptHyperLogLog, None),
    "trailing VAL": (HEADER + b"\x7f\xff\x80", CorruptHyperLogLog, None),
    "truncated XZERO": (HEADER + b"\x7f", CorruptHyperLogLog, None),
    "VAL 32 x 4096 x 2": (HEADER + b"\xff" * 8192, CorruptHyperLogLog, None),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_strings(name):
    data, count_err, add_err = HOSTILE[name]
    with pytest.raises(count_err) as e:
        HyperLogLog.from_bytes(data)
    assert str(e.value) == (HLL_NOT_VALID_TEXT if count_err is NotAHyperLogLog else HLL_CORRUPTED_TEXT)
    with pytest.raises(count_err):
        pfcount_bytes(data)
    if add_err is None:
        pfadd_bytes(data, [b"a"])
    else:
        with pytest.raises(add_err):
            pfadd_bytes(data, [b"a"])
    with pytest.raises(count_err):
        pfcount_union_bytes([None, data])
    with pytest.raises(count_err):
        pfmerge_bytes(None, [data])
    assert issubclass(count_err, HyperLogLogError) and issubclass(count_err, ValueError)


def test_nonzero_unused_bytes_accepted_and_valid_cache_trusted():
    v = b"HYLL\x01\x01\x02\x03" + (12345).to_bytes(8, "little") + b"\x7f\xff"
    h = HyperLogLog.from_bytes(v)
    assert h.count() == 12345
    assert pfcount_bytes(v) == (12345, None)


def test_forged_dense_overflow_is_redis_llround():
    v = b"HYLL\x00" + bytes(10) + b"\x80" + b"\xff" * 12288  # every register 63
    assert HyperLogLog.from_bytes(v).count() == -(2**63)


def test_pfadd_partial_effect_on_corrupt():
    # registers 0..16382 described, so register 16383 is unreachable: the adds
    # before the failing member stay, as on Redis
    v = HEADER + b"\x7f\xfe"
    assert _index(b"item:0") < 16383
    with pytest.raises(CorruptHyperLogLog) as e:
        pfadd_bytes(v, [b"item:0", _member_at(16383), b"a"])
    expected, _ = pfadd_bytes(v, [b"item:0"])
    assert e.value.value == expected


def _index(m):
    from fastrank._core import _hll_hash
    return _hll_hash(m)[1]


def _member_at(index):
    for i in range(10**6):
        m = b"m%d" % i
        if _index(m) == index:
            return m
    raise AssertionError


def test_strict_false_defers_validation():
    v = HEADER + b"\x7f\xff\x00"
    h = HyperLogLog.from_bytes(v, strict=False)
    assert h.add("a") is True
    with pytest.raises(CorruptHyperLogLog):
        h.count()
    with pytest.raises(AssertionError):
        h._check()


def test_random_adds_keep_valid_and_match_batch():
    rng = random.Random(5)
    for smax in (0, 50, 3000):
        one, batch = HyperLogLog(sparse_max_bytes=smax), HyperLogLog(sparse_max_bytes=smax)
        items = [rng.getrandbits(40) for _ in range(3000)]
        for x in items:
            one.add(x)
            if rng.random() < 0.01:
                one._check()
        batch.add_many(np.array(items, dtype=np.uint64))
        one._check()
        assert one == batch
        assert one.count() == batch.count()


def test_accuracy_sanity():
    # bench/bench_hll.py --accuracy 1000 gives the full table; this is a cheap
    # guard: 200 disjoint sets of 20,000 items, std of the relative error
    # near the theoretical 0.81%
    errs = []
    base = np.arange(20_000, dtype=np.uint64)
    for k in range(200):
        h = HyperLogLog()
        h.add_many(base + np.uint64(k * 10**11))
        errs.append(h.count() / 20_000 - 1)
    a = np.array(errs)
    assert abs(a.mean()) < 0.003
    assert 0.005 < a.std() < 0.011
