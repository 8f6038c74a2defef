"""Every batch entry point fed elements that run Python code on conversion.

An "evil" element's ``__float__`` / ``__int__`` / ``__index__`` / ``__bytes__``
clears, grows or replaces a container -- the caller's item list or the value
list itself -- while the batch converts it.  Whatever happens, the call must
not crash, and it must either give exactly the result of the batch as it was
when the call started (computed on a twin structure from a snapshot with the
evil elements replaced by their values), or raise a clean error and leave
the structure unchanged.
"""
from __future__ import annotations

from typing import Any, Callable, List, Tuple

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrank import CountMinSketch, HyperLogLog, SortedSet, TopK
from fastrank._core import pfadd_bytes

ACTIONS = ("clear", "grow", "replace")


def mutate(container: List[Any], action: str) -> None:
    if action == "clear":
        container.clear()
    elif action == "grow":
        container.extend(["grown-" + "x" * 40] * 64)
    else:
        container[:] = [b"replaced", "r" * 300, 12345]


class EvilFloat:
    def __init__(self, value: float, target: List[Any], action: str) -> None:
        self.value, self.target, self.action = value, target, action

    def __float__(self) -> float:
        mutate(self.target, self.action)
        return self.value


class EvilInt(int):
    target: List[Any]
    action: str

    def __int__(self) -> int:
        mutate(self.target, self.action)
        return int.__index__(self)

    def __index__(self) -> int:
        mutate(self.target, self.action)
        return int.__index__(self)


class EvilBytes(bytes):
    target: List[Any]
    action: str

    def __bytes__(self) -> bytes:
        mutate(self.target, self.action)
        return bytes.__getitem__(self, slice(None))


def evil_int(value: int, target: List[Any], action: str) -> EvilInt:
    e = EvilInt(value)
    e.target, e.action = target, action
    return e


def evil_bytes(value: bytes, target: List[Any], action: str) -> EvilBytes:
    e = EvilBytes(value)
    e.target, e.action = target, action
    return e


names = st.lists(st.text("abcxyz", min_size=0, max_size=4), min_size=1, max_size=40)
spots = st.lists(st.tuples(st.integers(0, 10**6), st.sampled_from(ACTIONS),
                           st.booleans()), min_size=1, max_size=4)


def plant(n: int, spots_: List[Tuple[int, str, bool]]) -> List[Tuple[int, str, bool]]:
    """(index, action, target-is-items) with indexes folded into range(n)."""
    return [(i % n, a, t) for i, a, t in spots_]


def outcome(fn: Callable[[], Any]) -> Tuple[str, Any]:
    try:
        return "ok", fn()
    except (TypeError, ValueError, OverflowError) as e:
        return "error", type(e)


def same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray):
        return (isinstance(b, np.ndarray) and a.dtype == b.dtype
                and np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    return bool(a == b)


@settings(max_examples=150, deadline=None)
@given(names, spots, st.sampled_from(["add_many", "incr_many"]))
def test_sortedset_float_conversions(members: List[str], spots_: Any, method: str) -> None:
    n = len(members)
    items: List[Any] = list(members)
    values: List[Any] = [float(i) for i in range(n)]
    plain = list(values)
    for i, action, on_items in plant(n, spots_):
        values[i] = EvilFloat(plain[i], items if on_items else values, action)
    z, twin = SortedSet(), SortedSet()
    for s in (z, twin):
        s.add("pre", 0.5)
    kind, got = outcome(lambda: getattr(z, method)(items, values))
    z._check()
    if kind == "error":
        assert z.items() == [(b"pre", 0.5)]
        return
    want = getattr(twin, method)(members, plain)
    assert same(got, want) and z.items() == twin.items()


@settings(max_examples=100, deadline=None)
@given(names, spots, st.sampled_from(["rank_many", "score_many"]))
def test_sortedset_lookups_with_int_members(members: List[str], spots_: Any,
                                            method: str) -> None:
    n = len(members)
    items: List[Any] = list(members)
    plain: List[Any] = list(members)
    for i, action, _ in plant(n, spots_):
        items[i] = evil_int(i, items, action)
        plain[i] = i
    z = SortedSet()
    z.add_many([str(i) for i in range(5)] + members, list(range(5 + n)))
    got = getattr(z, method)(items)
    assert same(got, getattr(z, method)(plain))


@settings(max_examples=150, deadline=None)
@given(names, spots, st.sampled_from(["incrby", "add_many"]))
def test_cms_increment_conversions(members: List[str], spots_: Any, method: str) -> None:
    n = len(members)
    items: List[Any] = list(members)
    incs: List[Any] = [1 + i % 3 for i in range(n)]
    plain = list(incs)
    for i, action, on_items in plant(n, spots_):
        incs[i] = evil_int(plain[i], items if on_items else incs, action)
    cms, twin = CountMinSketch(64, 3), CountMinSketch(64, 3)
    kind, got = outcome(lambda: getattr(cms, method)(items, incs))
    if kind == "error":
        assert cms == twin
        return
    want = getattr(twin, method)(members, plain)
    assert same(got, want) and cms == twin


@settings(max_examples=150, deadline=None)
@given(names, spots, st.sampled_from(["incrby", "add_many", "query_bytes"]))
def test_topk_conversions(members: List[str], spots_: Any, method: str) -> None:
    n = len(members)
    items: List[Any] = list(members)
    incs: List[Any] = [1 + i % 3 for i in range(n)]
    plain_items: List[Any] = list(members)
    plain = list(incs)
    for i, action, on_items in plant(n, spots_):
        if method == "query_bytes":
            items[i] = evil_bytes(members[i].encode(), items, action)
        else:
            incs[i] = evil_int(plain[i], items if on_items else incs, action)
    t, twin = TopK(4, 32, 3, 1.0, seed=2), TopK(4, 32, 3, 1.0, seed=2)
    for s in (t, twin):
        s.add(["a", "b", "a"])
    if method == "query_bytes":
        assert t.query(items) == twin.query(plain_items)
        again: List[Any] = list(members)
        for i, action, _ in plant(n, spots_):
            again[i] = evil_bytes(members[i].encode(), again, action)
        assert t.count(again) == twin.count(plain_items)
        return
    kind, got = outcome(lambda: getattr(t, method)(items, incs))
    if kind == "error":
        assert t == twin
        return
    want = getattr(twin, method)(members, plain)
    assert got == want and t == twin


@settings(max_examples=150, deadline=None)
@given(names, spots)
def test_cms_query_and_incrby_with_bytes_items(members: List[str], spots_: Any) -> None:
    n = len(members)
    items: List[Any] = list(members)
    for i, action, _ in plant(n, spots_):
        items[i] = evil_bytes(members[i].encode(), items, action)
    cms, twin = CountMinSketch(64, 3), CountMinSketch(64, 3)
    assert cms.incrby(items, 2) == twin.incrby(members, 2)
    assert cms == twin


@settings(max_examples=150, deadline=None)
@given(names, spots, st.booleans())
def test_hll_member_conversions(members: List[str], spots_: Any, raw: bool) -> None:
    n = len(members)
    items: List[Any] = list(members)
    plain: List[Any] = list(members)
    for i, action, _ in plant(n, spots_):
        items[i] = evil_int(i * 7, items, action)
        plain[i] = str(i * 7)
    ref = HyperLogLog()
    ref.add_many(plain)
    if raw:
        value, _ = pfadd_bytes(None, items)
        assert value == ref.to_bytes()
        return
    h = HyperLogLog()
    h.add_many(items)
    assert h.to_bytes() == ref.to_bytes()
