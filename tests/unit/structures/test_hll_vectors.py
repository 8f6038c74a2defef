"""Known answers for HyperLogLog, from tests/vectors/hll-vectors.json.

The vectors (a copy of the project's shared hll-vectors.json) were captured
from a real Redis 7.0.15:
per-element MurmurHash64A / register index / rank, full string bytes after
PFADD and PFMERGE, PFCOUNT and the cache bytes it writes, and a 5000-step
one-element-per-PFADD curve across the sparse -> dense promotion.
"""
import hashlib
import json
from pathlib import Path

import pytest

from fastrank import HyperLogLog
from fastrank._core import _hll_hash, _hll_selftest, pfadd_bytes, pfcount_bytes, pfmerge_bytes


VPATH = Path(__file__).resolve().parents[2] / "vectors" / "hll-vectors.json"
DATA = json.loads(VPATH.read_text())


def _elements(call):
    if isinstance(call, dict):
        if "range" in call:
            r = call["range"]
            return [(r["prefix"] + str(i)).encode() for i in range(r["start"], r["stop_exclusive"])]
        return [bytes.fromhex(x) for x in call["hex_elements"]]
    out = []
    for x in call:
        out += _elements(x) if isinstance(x, dict) else [x.encode()]
    return out


def test_c_selftest():
    assert _hll_selftest() == 0


@pytest.mark.parametrize("v", DATA["element_hash_vectors"], ids=lambda v: v["element_repr"])
def test_hash_index_rank(v):
    h, index, rank = _hll_hash(bytes.fromhex(v["element_hex"]))
    assert h == int(v["murmur64a_seed_0xadc83b19"], 16)
    assert index == v["register_index"]
    assert rank == v["register_value"]


def _replay(v):
    """The value after the vector's commands, computed three ways that must agree."""
    inp = v["inputs"]
    if "pfadd_calls" in inp:
        raw = None
        cls = HyperLogLog()
        for k, call in enumerate(inp["pfadd_calls"]):
            if k and inp.get("pfcount_between"):
                _, new = pfcount_bytes(raw)
                raw = new or raw
                cls.count()
            raw, _ = pfadd_bytes(raw, _elements(call))
            cls.add_many(_elements(call))
        assert cls.to_bytes() == raw
        return raw
    store = {}
    for op, key, *args in inp["setup"]:
        assert op == "PFADD"
        store[key], _ = pfadd_bytes(store.get(key), _elements(args))
    _, dest, *srcs = inp["command"]
    assert dest not in store
    raw = pfmerge_bytes(None, [store.get(s) for s in srcs])
    # the class: PFMERGE into a missing key starts from an empty HLL whose
    # cache bytes are zero (a new HyperLogLog() has the stale flag set, which
    # the merge sets anyway)
    h = HyperLogLog()
    h.merge(*[HyperLogLog.from_bytes(store[s]) for s in srcs])
    assert h.to_bytes() == raw
    return raw


@pytest.mark.parametrize("v", DATA["vectors"], ids=lambda v: v["name"])
def test_string_bytes_and_pfcount(v):
    raw = _replay(v)
    assert len(raw) == int(v["length"])
    if "sha256_before_pfcount" in v:
        assert hashlib.sha256(raw).hexdigest() == v["sha256_before_pfcount"]
    if len(v["hex_before_pfcount"]) == 2 * len(raw):
        assert raw.hex() == v["hex_before_pfcount"]
    else:
        assert raw.hex().startswith(v["hex_before_pfcount"])
    assert HyperLogLog.from_bytes(raw).is_sparse == (v["encoding"] == "sparse")
    count, new = pfcount_bytes(raw)
    assert count == int(v["pfcount"])
    assert new is not None and new[:8] == raw[:8] and new[16:] == raw[16:]
    if "cached_card_hex_after_pfcount" in v:
        assert new[8:16].hex() == v["cached_card_hex_after_pfcount"]
    # the cache is now trusted: a second PFCOUNT leaves the value alone
    assert pfcount_bytes(new) == (count, None)
    h = HyperLogLog.from_bytes(raw)
    assert h.count() == count and h.to_bytes() == new


def test_pfmerge_union_counts():
    by_name = {v["name"]: v for v in DATA["vectors"]}
    s1, _ = pfadd_bytes(None, [b"a", b"b"])
    s2, _ = pfadd_bytes(None, [b"c"])
    assert HyperLogLog.union_count(s1, s2) == int(by_name["pfmerge-sparse"]["pfcount_union_s1_s2"])
    big, _ = pfadd_bytes(None, [b"item:%d" % i for i in range(5000)])
    assert HyperLogLog.union_count(s1, big) == int(by_name["pfmerge-dense"]["pfcount_union_s1_big"])
    m = HyperLogLog()
    m.merge(s1, HyperLogLog.from_bytes(s2))
    assert m.to_bytes().hex() == by_name["pfmerge-sparse"]["hex_before_pfcount"]


def test_incremental_curve_5000_steps():
    curve = DATA["incremental_curve"]
    h = HyperLogLog()
    raw = None
    for i in range(len(curve["pfcount"])):
        item = f"item:{i}"
        raw, reply = pfadd_bytes(raw, [item.encode()])
        changed = h.add(item)
        assert reply == curve["pfadd_reply"][i], i
        assert int(changed) == reply, i
        assert h.to_bytes() == raw, i
        assert hashlib.sha256(raw).hexdigest()[:16] == curve["sha256_prefix_before_pfcount"][i], i
        count, new = pfcount_bytes(raw)
        raw = new or raw
        assert count == curve["pfcount"][i] == h.count(), i
    assert not h.is_sparse and len(h) == 12304
