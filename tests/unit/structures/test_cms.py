"""CountMinSketch: known answers captured from RedisBloom 2.8.2, limits, errors.

The vectors (tests/vectors/sketch-vectors.json, a copy of the shared
vectors/sketch-vectors.json) were captured with redis-py 8.1.0 against
redis-server 7.0.15 + RedisBloom 2.8.2; see their ``generated_by`` field.
"""
from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest

from fastrank import CountMinSketch
from fastrank._core import murmurhash2

VECTORS = json.loads((Path(__file__).parents[2] / "vectors" / "sketch-vectors.json").read_text())
U32 = 2**32 - 1


# -- MurmurHash2 ---------------------------------------------------------------

@pytest.mark.parametrize("vec", VECTORS["murmurhash2_32"], ids=lambda v: v["item_repr"])
def test_murmurhash2_known_answers(vec):
    item = bytes.fromhex(vec["item_hex"])
    for key, expected in vec.items():
        if key.startswith("seed_"):
            assert murmurhash2(item, int(key[5:])) == expected, key


def test_murmurhash2_all_tail_lengths_agree_with_reference():
    # Reference model in pure Python (the public-domain algorithm).
    def ref(data: bytes, seed: int) -> int:
        m, h = 0x5BD1E995, (seed ^ len(data)) & U32
        n = len(data) // 4
        for i in range(n):
            k = int.from_bytes(data[4 * i: 4 * i + 4], "little")
            k = (k * m) & U32
            k ^= k >> 24
            k = (k * m) & U32
            h = ((h * m) & U32) ^ k
        tail = data[4 * n:]
        if len(tail) >= 3:
            h ^= tail[2] << 16
        if len(tail) >= 2:
            h ^= tail[1] << 8
        if tail:
            h ^= tail[0]
            h = (h * m) & U32
        h ^= h >> 13
        h = (h * m) & U32
        return h ^ (h >> 15)

    rng = np.random.default_rng(7)
    for length in list(range(0, 80)) + [200, 1000]:
        data = rng.integers(0, 256, length, dtype=np.uint8).tobytes()
        for seed in (0, 1, 6, 1919, U32):
            assert murmurhash2(data, seed) == ref(data, seed)


# -- known answers -----------------------------------------------------------------

def test_cms_vector_small():
    vec = VECTORS["cms"][0]
    cms = CountMinSketch(10, 3)
    assert cms.incrby(["a", "b"], [1, 2]) == vec["incrby_reply"]
    assert cms.query(vec["query"]["items"]) == vec["query"]["reply"]
    info = vec["info_resp2"]
    assert cms.info() == dict(zip(info[::2], info[1::2]))
    for item, where in vec["cell_index_per_row(row*width+col)"].items():
        alone = CountMinSketch(10, 3)
        alone.incrby([item], [1])
        assert np.flatnonzero(alone.counters().ravel()).tolist() == where, item


def test_cms_vector_items_one_call():
    vec = VECTORS["cms"][1]
    cms = CountMinSketch(50, 4)
    cms.incrby([f"item:{i}" for i in range(200)], [(i % 7) + 1 for i in range(200)])
    assert cms.query(vec["query"]["items"]) == vec["query"]["reply"]
    info = vec["info_resp2"]
    assert cms.info() == dict(zip(info[::2], info[1::2]))


@pytest.mark.parametrize("vec", VECTORS["cms_initbyprob_dims"], ids=lambda v: f"{v['error']}-{v['probability']}")
def test_from_error_dimensions(vec):
    cms = CountMinSketch.from_error(float(vec["error"]), float(vec["probability"]))
    assert (cms.width, cms.depth) == (vec["width"], vec["depth"])


@pytest.mark.parametrize(
    "error,prob,width,depth",
    [(1 / 3, 0.5, 6, 1), (0.7, 0.5, 3, 1), (0.01, 0.25, 200, 2), (0.01, 0.001, 200, 10),
     (0.01, 0.12499999999, 200, 3), (0.01, 0.031249999999, 200, 5), (0.5, 1e-45, 4, 149)],
)
def test_from_error_single_precision_depth(error, prob, width, depth):
    cms = CountMinSketch.from_error(error, prob)
    assert (cms.width, cms.depth) == (width, depth)


# -- counting -----------------------------------------------------------------------

def test_incrby_returns_min_after_own_increment_in_order():
    cms = CountMinSketch(10, 3)
    assert cms.incrby(["a", "a", "b"], [5, 1, 0]) == [5, 6, 0]
    assert cms.total == 6


def test_item_encodings_match_redis_py():
    cms = CountMinSketch(1000, 5)
    cms.incrby([42, 1.5, "é", bytearray(b"x"), memoryview(b"y")], 1)
    assert cms.query([b"42", b"1.5", "é".encode(), b"x", b"y"]) == [1] * 5
    with pytest.raises(TypeError):
        cms.incrby([True], [1])
    with pytest.raises(TypeError):
        cms.incrby([None], [1])
    with pytest.raises(TypeError):
        cms.query("abc")  # a single item, not a sequence


def test_numpy_integer_items_are_decimal_text():
    a, b = CountMinSketch(97, 5), CountMinSketch(97, 5)
    ints = np.array([0, 1, -1, 123456789, -(2**63), 2**63 - 1], dtype=np.int64)
    res = a.incrby(ints, np.arange(1, 7))
    assert isinstance(res, np.ndarray) and res.dtype == np.uint32
    assert res.tolist() == b.incrby([str(v) for v in ints.tolist()], list(range(1, 7)))
    assert a == b
    u = np.array([2**64 - 1, 0, 7], dtype=np.uint64)
    assert a.query(u).tolist() == b.query(["18446744073709551615", "0", "7"])
    for dtype in (np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32):
        assert a.query(np.array([1, 7], dtype=dtype)).tolist() == a.query(["1", "7"])
    # a numpy array of strings goes through the generic path, answers as ndarray
    assert a.query(np.array(["1", "7"])).tolist() == a.query(["1", "7"])


def test_scalar_increment_broadcasts():
    cms = CountMinSketch(100, 4)
    assert cms.incrby(["a", "b"], 3) == [3, 3]
    assert cms.incrby(np.array([1, 2]), 2).tolist() == [2, 2]
    assert cms.total == 10


def test_saturation_and_overflow_marker():
    cms = CountMinSketch(1, 1)
    assert cms.incrby(["x"], [U32 - 1]) == [U32 - 1]
    assert cms.incrby(["x", "y"], [5, 0]) == [CountMinSketch.OVERFLOW] * 2
    assert cms.query(["z"]) == [U32]
    assert cms.total == U32 - 1 + 5
    big = CountMinSketch(5, 2)
    assert big.incrby(["a"], [2**63 - 1]) == [U32]
    assert big.total == 2**63 - 1
    big.incrby(["a"], [2**63 - 1])
    assert big.total == -2  # signed 64-bit wrap, as RedisBloom reports it


# -- bad input ------------------------------------------------------------------------

@pytest.mark.parametrize("width,depth,msg", [
    (0, 3, "CMS: invalid width"), (-1, 3, "CMS: invalid width"),
    (3, 0, "CMS: invalid depth"), (3, -5, "CMS: invalid depth"),
])
def test_bad_dimensions(width, depth, msg):
    with pytest.raises(ValueError, match=msg):
        CountMinSketch(width, depth)


def test_bad_dimension_types():
    with pytest.raises(TypeError, match="CMS: invalid width"):
        CountMinSketch(1.5, 3)
    with pytest.raises(TypeError, match="CMS: invalid depth"):
        CountMinSketch(3, "2")


@pytest.mark.parametrize("error,prob,msg", [
    (0, 0.5, "overestimation"), (1, 0.5, "overestimation"), (-0.1, 0.5, "overestimation"),
    (float("nan"), 0.5, "overestimation"), (0.5, 0, "prob"), (0.5, 1, "prob"),
    (0.5, float("inf"), "prob"), (0.5, 0.99999999, "init arguments"),
    (0.5, 1e-46, "init arguments"), (1e-300, 0.5, "init arguments"),
])
def test_from_error_bad(error, prob, msg):
    with pytest.raises(ValueError, match=msg):
        CountMinSketch.from_error(error, prob)


def test_bad_increments_leave_state_unchanged():
    cms = CountMinSketch(10, 3)
    cms.incrby(["a"], [1])
    before = cms.to_bytes()
    with pytest.raises(ValueError, match="CMS: Number cannot be negative"):
        cms.incrby(["a", "b"], [1, -1])
    with pytest.raises(TypeError, match="CMS: Cannot parse number"):
        cms.incrby(["a", "b"], [1, 1.5])
    with pytest.raises(ValueError, match="CMS: Cannot parse number"):
        cms.incrby(["a", "b"], [1, 2**63])
    with pytest.raises(ValueError, match="differ in length"):
        cms.incrby(["a", "b"], [1])
    with pytest.raises(ValueError, match="CMS: Number cannot be negative"):
        cms.incrby(np.array([1, 2]), np.array([1, -1]))
    with pytest.raises(TypeError):
        cms.incrby(np.array([1, 2]), np.array([1.0, 2.0]))
    with pytest.raises(TypeError):
        cms.incrby(["a", object()], [1, 1])
    with pytest.raises(UnicodeEncodeError):
        cms.incrby(["a", "\ud800"], [1, 1])
    assert cms.to_bytes() == before


# -- merge --------------------------------------------------------------------------

def _filled(seed: int, width: int = 40, depth: int = 4) -> CountMinSketch:
    rng = np.random.default_rng(seed)
    cms = CountMinSketch(width, depth)
    cms.incrby(rng.integers(0, 500, 2000), rng.integers(0, 5, 2000))
    return cms


def test_merge_weighted_sum_cell_by_cell():
    a, b = _filled(1), _filled(2)
    dest = CountMinSketch(40, 4)
    dest.merge([a, b], [2, 3])
    assert (dest.counters() == 2 * a.counters().astype(np.int64) + 3 * b.counters()).all()
    assert dest.total == 2 * a.total + 3 * b.total
    dest.merge([a, b])
    assert (dest.counters() == a.counters().astype(np.int64) + b.counters()).all()


def test_merge_in_place_and_negative_weight():
    a = _filled(3)
    twice = a.copy()
    twice.merge([twice, a], [1, 1])
    assert (twice.counters() == 2 * a.counters().astype(np.int64)).all()
    twice.merge([twice, a], [1, -1])
    assert twice == a


def test_merge_errors_leave_dest_unchanged():
    a, b = _filled(4), _filled(5)
    dest = _filled(6)
    before = dest.to_bytes()
    with pytest.raises(ValueError, match="CMS: width/depth is not equal"):
        dest.merge([a, CountMinSketch(41, 4)])
    with pytest.raises(OverflowError, match="CMS: MERGE overflow"):
        dest.merge([a, b], [1, -1000])
    with pytest.raises(OverflowError, match="CMS: MERGE overflow"):
        dest.merge([a], [2**62])
    with pytest.raises(ValueError, match="keys/weights"):
        dest.merge([a, b], [1])
    with pytest.raises(TypeError, match="CMS: invalid weight value"):
        dest.merge([a], [1.5])
    with pytest.raises(ValueError, match="CMS: invalid weight value"):
        dest.merge([a], [2**63])
    with pytest.raises(TypeError):
        dest.merge([a, "b"])
    with pytest.raises(ValueError):
        dest.merge([])
    assert dest.to_bytes() == before


def test_merge_saturated_cells_overflow():
    full = CountMinSketch(1, 1)
    full.incrby(["x"], [U32])
    dest = CountMinSketch(1, 1)
    dest.merge([full])
    assert dest.query(["x"]) == [U32]
    with pytest.raises(OverflowError):
        dest.merge([full, full])


# -- serialization ------------------------------------------------------------------

def test_roundtrip_bytes_and_pickle():
    a = _filled(7)
    data = a.to_bytes()
    assert data[:4] == b"FRCM" and data[4:6] == b"\x01\x00"
    assert len(data) == 32 + 4 * 40 * 4
    b = CountMinSketch.from_bytes(data)
    assert a == b and b.info() == a.info()
    assert pickle.loads(pickle.dumps(a)) == a
    assert CountMinSketch.from_bytes(bytearray(data)) == a
    b.incrby(["new"], [1])
    assert a != b


@pytest.mark.parametrize("mutate", [
    lambda d: d[:-1], lambda d: d + b"\0", lambda d: b"XRCM" + d[4:],
    lambda d: d[:4] + b"\x02\x00" + d[6:], lambda d: d[:6] + b"\x01\x00" + d[8:],
    lambda d: d[:8] + (0).to_bytes(8, "little") + d[16:],
    lambda d: d[:16] + (5).to_bytes(8, "little") + d[24:],
    lambda d: d[:8] + (2**62).to_bytes(8, "little") + d[16:],
    lambda d: b"", lambda d: d[:31],
])
def test_from_bytes_rejects_malformed(mutate):
    data = _filled(8).to_bytes()
    with pytest.raises(ValueError):
        CountMinSketch.from_bytes(mutate(data))


def test_reinit_refused():
    cms = CountMinSketch(10, 3)
    with pytest.raises(TypeError):
        cms.__init__(5, 5)
    assert cms.info()["width"] == 10


def test_docstring_examples():
    """The examples in the sketches' docstrings run and hold (every doctest in the package is run)."""
    import doctest

    from fastrank import TopK
    from fastrank import _core

    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for obj in (CountMinSketch, TopK, _core.murmurhash2):
        for test in finder.find(obj, globs={"CountMinSketch": CountMinSketch, "TopK": TopK,
                                            "murmurhash2": _core.murmurhash2}):
            runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 15 and result.failed == 0


@pytest.mark.parametrize("dtype", [np.int64, np.uint64, np.int32])
@pytest.mark.parametrize("shape", [(1000, 4), (37, 8), (50, 9), (2**16, 2)])
def test_large_integer_batches_equal_text_batches(dtype, shape):
    # Big numpy batches take the remembered-address path (cms.c); it must
    # give exactly what hashing every item's text gives.
    rng = np.random.default_rng(31)
    raw = rng.zipf(1.2, 40_000)
    if dtype is np.uint64:
        items = (raw.astype(np.uint64) + np.uint64(2**63))
    elif dtype is np.int32:
        items = (raw % 2**31).astype(np.int32) * np.where(rng.random(raw.size) < 0.5, -1, 1).astype(np.int32)
    else:
        items = raw.astype(np.int64) * np.where(rng.random(raw.size) < 0.5, -1, 1)
    incs = rng.integers(0, 3, items.size)
    a, b = CountMinSketch(*shape), CountMinSketch(*shape)
    res = a.incrby(items, incs)
    assert res.tolist() == b.incrby([str(v) for v in items.tolist()], incs.tolist())
    assert a == b
    assert a.query(items).tolist() == b.query([str(v) for v in items.tolist()])


def test_add_many_equals_incrby_without_results():
    rng = np.random.default_rng(51)
    items = rng.zipf(1.2, 30_000)
    texts = [str(v) for v in items.tolist()]
    a, b, c = CountMinSketch(300, 5), CountMinSketch(300, 5), CountMinSketch(300, 5)
    assert a.add_many(items) is None
    assert b.add_many(texts, np.ones(items.size, dtype=np.int64)) is None
    c.incrby(texts, 1)
    assert a == b == c
    before = a.to_bytes()
    with pytest.raises(ValueError, match="CMS: Number cannot be negative"):
        a.add_many(["x", "y"], [1, -1])
    assert a.to_bytes() == before


def test_dimensions_too_big_to_allocate():
    # RedisBloom 2.8: width and depth are signed 64-bit; a product past
    # 2**63 - 1 is "invalid init arguments"; a smaller one that cannot be
    # allocated is "Insufficient memory to create the key".
    with pytest.raises(MemoryError, match="^CMS: Insufficient memory to create the key$"):
        CountMinSketch(2**63 - 1, 1)
    with pytest.raises(MemoryError, match="^CMS: Insufficient memory to create the key$"):
        CountMinSketch(2**62 - 1, 2)
    with pytest.raises(ValueError, match="^CMS: invalid init arguments$"):
        CountMinSketch(2**62, 2)
    with pytest.raises(ValueError, match="^CMS: invalid init arguments$"):
        CountMinSketch(2**40, 2**40)
    with pytest.raises(ValueError, match="CMS: invalid width"):
        CountMinSketch(2**63, 1)
    with pytest.raises(ValueError, match="CMS: invalid depth"):
        CountMinSketch(1, 2**64 - 1)


@pytest.mark.parametrize("n", [50, 20_000])  # without and with the remembered-address memo
def test_integer_texts_around_the_one_word_limits(n):
    # Texts of up to 8 bytes (-9999999 .. 99999999) are built and hashed in
    # one word (murmurhash2.h fr_dec8_word / fr_murmur2_word_*); longer ones take
    # the buffer path.  Both must hash exactly the decimal text.
    edges = [0, 1, 9, 10, 99, 100, 999, 1000, 9999, 10000, 99999, 100000, 9999999, 10000000,
             99999999, 100000000, 999999999, 2**32 - 1, 2**32, 2**63 - 1]
    signed = edges + [-v for v in edges[1:]] + [-2**63]
    for values, dtype in ((signed, np.int64), (edges + [2**63, 2**64 - 1], np.uint64)):
        items = np.array((values * (n // len(values) + 1))[:n], dtype=dtype)
        a, b = CountMinSketch(1009, 4), CountMinSketch(1009, 4)
        assert a.incrby(items, 3).tolist() == b.incrby([str(v) for v in items.tolist()], 3)
        assert a == b
        assert a.query(items).tolist() == [murmur_min(b, str(v)) for v in items.tolist()]


def murmur_min(cms, text):
    """The estimate of text from the counters, computed with murmurhash2 in Python."""
    cells = cms.counters()
    return min(int(cells[r][murmurhash2(text.encode(), r) % cms.width]) for r in range(cms.depth))
