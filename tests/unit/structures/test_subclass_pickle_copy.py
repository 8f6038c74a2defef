"""Pickle and copy of subclasses of the core types keep the subclass and its
instance attributes (issue item 9)."""
from __future__ import annotations

import copy
import pickle

import pytest

from fastrank import CountMinSketch, HyperLogLog, SortedSet, TopK


class Board(SortedSet):
    pass


class SlottedBoard(SortedSet):
    __slots__ = ("label",)


class Counter(CountMinSketch):
    pass


class Trending(TopK):
    pass


class Visitors(HyperLogLog):
    pass


def filled(cls: type) -> object:
    if issubclass(cls, SortedSet):
        obj = cls()
        obj.add("a", 1)
    elif issubclass(cls, CountMinSketch):
        obj = cls(16, 3)
        obj.incrby(["a"], [2])
    elif issubclass(cls, TopK):
        obj = cls(2, 16, 3, 1.0, seed=3)
        obj.add(["a", "b", "a"])
    else:
        obj = cls()
        obj.add("a")
    return obj


def same_content(a: object, b: object) -> bool:
    if isinstance(a, SortedSet):
        return a.items() == b.items()  # type: ignore[attr-defined]
    return a.to_bytes() == b.to_bytes()  # type: ignore[attr-defined]


@pytest.mark.parametrize("cls", [Board, SlottedBoard, Counter, Trending, Visitors])
@pytest.mark.parametrize("how", ["pickle", "copy", "deepcopy", "method"])
def test_subclass_and_attributes_survive(cls: type, how: str) -> None:
    obj = filled(cls)
    if cls is SlottedBoard:
        obj.label = ["top"]  # type: ignore[attr-defined]
    else:
        obj.label = ["top"]  # type: ignore[attr-defined]
    if how == "pickle":
        out = pickle.loads(pickle.dumps(obj))
    elif how == "copy":
        out = copy.copy(obj)
    elif how == "deepcopy":
        out = copy.deepcopy(obj)
    else:
        out = obj.copy()  # type: ignore[attr-defined]
    assert type(out) is cls
    assert out.label == ["top"]
    assert (out.label is obj.label) == (how in ("copy", "method"))
    assert same_content(obj, out)


@pytest.mark.parametrize("cls", [SortedSet, CountMinSketch, TopK, HyperLogLog])
def test_base_types_round_trip(cls: type) -> None:
    obj = filled(cls)
    for out in (pickle.loads(pickle.dumps(obj)), copy.copy(obj), copy.deepcopy(obj)):
        assert type(out) is cls and same_content(obj, out)
