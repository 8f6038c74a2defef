"""Core objects made without __init__ refuse cleanly instead of crashing or
reading uninitialised memory."""
from __future__ import annotations

import pytest

from fastrank import CountMinSketch, HyperLogLog, SortedSet, TopK
from fastrank._core import CMS_ERR_NOT_READY, TOPK_ERR_NOT_READY


class LazyTopK(TopK):
    def __init__(self) -> None:  # does not call TopK.__init__
        self.note = "lazy"


class LazyCms(CountMinSketch):
    def __init__(self) -> None:
        self.note = "lazy"


TOPK_CALLS = [
    lambda t: t.add(["a"]), lambda t: t.query(["a"]), lambda t: t.count(["a"]),
    lambda t: t.list(), lambda t: t.incrby(["a"], [1]), lambda t: t.add_many(["a"]),
    lambda t: t.info(), lambda t: t.to_bytes(), lambda t: t.copy(), lambda t: t.seed(1),
    lambda t: t.merge(TopK(1, 8, 7, 0.9)), lambda t: t._check(), lambda t: t._heap(),
]
CMS_CALLS = [
    lambda c: c.query(["a"]), lambda c: c.incrby(["a"], [1]), lambda c: c.add_many(["a"]),
    lambda c: c.info(), lambda c: c.to_bytes(), lambda c: c.copy(), lambda c: c.counters(),
    lambda c: c.merge([CountMinSketch(8, 2)]),
]


@pytest.mark.parametrize("make", [lambda: TopK.__new__(TopK), LazyTopK])
@pytest.mark.parametrize("call", TOPK_CALLS)
def test_topk_without_init(make, call) -> None:
    with pytest.raises(TypeError, match="^" + TOPK_ERR_NOT_READY.replace("(", r"\(")
                       .replace(")", r"\)") + "$"):
        call(make())


@pytest.mark.parametrize("make", [lambda: CountMinSketch.__new__(CountMinSketch), LazyCms])
@pytest.mark.parametrize("call", CMS_CALLS)
def test_cms_without_init(make, call) -> None:
    with pytest.raises(TypeError, match="not initialised"):
        call(make())
    assert CMS_ERR_NOT_READY.startswith("CountMinSketch is not initialised")


def test_a_merge_source_without_init_is_refused() -> None:
    c = CountMinSketch(8, 2)
    with pytest.raises(TypeError, match="not initialised"):
        c.merge([CountMinSketch.__new__(CountMinSketch)])
    assert c.query(["a"]) == [0]


def test_sortedset_and_hll_are_ready_after_new() -> None:
    z = SortedSet.__new__(SortedSet)
    z.add("a", 1)
    assert z.items() == [(b"a", 1.0)]
    h = HyperLogLog.__new__(HyperLogLog)
    h.add("a")
    assert h.count() == 1
