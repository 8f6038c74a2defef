"""Batch methods own their arguments before they take pointers (issue: crashes
and use-after-free).

Each test hands a batch method an element whose conversion (``__float__``,
``__int__``, ``__index__``) runs Python code that clears, grows or replaces
the caller's list, then checks that the call neither crashes nor reads freed
memory: it gives the result of the list as it was when the call started.
"""
from __future__ import annotations

import numpy as np
import pytest

from fastrank import CountMinSketch, HyperLogLog, SortedSet, TopK


def test_sortedset_add_many_score_clears_members() -> None:
    members = ["a", "b", "c"]

    class Evil:
        def __float__(self) -> float:
            members.clear()
            return 1.0

    z = SortedSet()
    assert z.add_many(members, [Evil(), 2.0, 3.0]) == 3
    assert z.items() == [(b"a", 1.0), (b"b", 2.0), (b"c", 3.0)]
    z._check()


@pytest.mark.parametrize("n", [3, 200])  # the point path and the bulk path
def test_sortedset_batches_with_a_replaced_member_list(n: int) -> None:
    members = [f"m{i}" for i in range(n)]
    expect = list(members)

    class Evil:
        def __float__(self) -> float:
            members[:] = [bytes(1000) for _ in range(3 * n)]  # replaced and grown
            return 0.5

    z = SortedSet()
    z.add_many(members, [Evil()] + [1.0] * (n - 1))
    assert sorted(m.decode() for m in z) == sorted(expect)
    members[:] = list(expect)
    out = z.incr_many(members, [Evil()] + [1.0] * (n - 1))
    assert out[0] == 1.0 and len(out) == n
    z._check()


def test_cms_incrby_increment_clears_items_and_allocates() -> None:
    items = [f"x{i}" for i in range(2000)]
    expect = list(items)

    class EvilInt(int):
        def __int__(self) -> int:
            items.clear()
            _ = [("y" * 50) + str(i) for i in range(5000)]  # reuse the freed memory
            return 1

    a, b = CountMinSketch(1000, 4), CountMinSketch(1000, 4)
    ra = a.incrby(items, [EvilInt(1)] + [1] * 1999)
    rb = b.incrby(expect, [1] * 2000)
    assert ra == rb and a == b


def test_topk_incrby_increment_clears_items() -> None:
    items = [f"x{i % 50}" for i in range(2000)]
    expect = list(items)

    class EvilInt(int):
        def __int__(self) -> int:
            items.clear()
            return 1

    a, b = TopK(5, 64, 4, 1.0, seed=1), TopK(5, 64, 4, 1.0, seed=1)
    ra = a.incrby(items, [EvilInt(1)] + [1] * 1999)
    rb = b.incrby(expect, [1] * 2000)
    assert len(ra) == 2000 and ra == rb and a == b


def test_topk_add_many_increment_replaces_items() -> None:
    items = [f"x{i % 50}" for i in range(500)]
    expect = list(items)

    class EvilInt(int):
        def __int__(self) -> int:
            items[:] = ["other"] * 5
            return 1

    a, b = TopK(5, 64, 4, 1.0, seed=1), TopK(5, 64, 4, 1.0, seed=1)
    a.add_many(items, [EvilInt(1)] + [1] * 499)
    b.add_many(expect, [1] * 500)
    assert a == b


def test_hll_add_many_member_int_clears_list() -> None:
    items: list = []

    class EvilInt(int):
        def __int__(self) -> int:
            items.clear()
            return 7

    items.extend(["a", "b", EvilInt(7), "c"])
    h = HyperLogLog()
    h.add_many(items)
    ref = HyperLogLog()
    ref.add_many(["a", "b", "7", "c"])
    assert h.to_bytes() == ref.to_bytes()


def test_numpy_members_resized_by_a_score_are_not_read_stale() -> None:
    arr = np.arange(100, dtype=np.int64)

    class Evil:
        def __float__(self) -> float:
            try:
                arr.resize(0, refcheck=True)  # numpy refuses: the batch holds a reference
            except ValueError:
                pass
            return 1.0

    z = SortedSet()
    assert z.add_many(arr, [Evil()] + [2.0] * 99) == 100
    z._check()
