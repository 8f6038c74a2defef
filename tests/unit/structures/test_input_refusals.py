"""Inputs the core refuses with a clear error (issue item 9): bool, complex
and date scores, a numpy float increment for a CMS, pickling an Engine."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import fastrank
from fastrank import CountMinSketch, SortedSet, TopK
from fastrank import errors as E

BAD_SCORES = [
    [1 + 2j, 2.0, 3.0],
    np.array([1 + 0j, 2, 3]),
    [True, 2.0, 3.0],
    np.array([True, False, True]),
    np.array(["2020-01-01"] * 3, dtype="datetime64[D]"),
    [np.datetime64("2020-01-01")] * 3,
    np.array([1, 2, 3], dtype="timedelta64[s]"),
]


@pytest.mark.parametrize("scores", BAD_SCORES)
def test_sortedset_refuses_non_real_scores(scores: object) -> None:
    z = SortedSet()
    z.add("keep", 1)
    with pytest.raises(TypeError, match="real numbers"):
        z.add_many(["a", "b", "c"], scores)
    with pytest.raises(TypeError, match="real numbers"):
        z.incr_many(["a", "b", "c"], scores)
    assert z.items() == [(b"keep", 1.0)]


@pytest.mark.parametrize("lone", ["abc", b"abc"])
def test_lone_strings_are_refused_everywhere(lone: object) -> None:
    with pytest.raises(TypeError):
        SortedSet().add_many(lone, [1, 2, 3])
    with pytest.raises(TypeError):
        CountMinSketch(8, 2).incrby(lone, 1)
    with pytest.raises(TypeError):
        TopK(2, 8, 7, 0.9).add(lone)


@pytest.mark.parametrize("incr", [np.float32(1), np.float64(1), 1.0, np.bool_(True), 1j, "1"])
def test_cms_non_integer_increment_says_cannot_parse(incr: object) -> None:
    c = CountMinSketch(8, 2)
    with pytest.raises(TypeError, match="^CMS: Cannot parse number$"):
        c.incrby(["a"], incr)
    with pytest.raises(TypeError, match="^CMS: Cannot parse number$"):
        c.incrby(["a"], [incr])
    assert c.query(["a"]) == [0]


def test_object_arrays_of_numbers_are_still_scores() -> None:
    z = SortedSet()
    assert z.add_many(["a", "b"], np.array([1.5, 2], dtype=object)) == 2
    assert z.items() == [(b"a", 1.5), (b"b", 2.0)]
    with pytest.raises(TypeError, match="real numbers"):
        z.add_many(["c"], np.array([True], dtype=object))


def test_numpy_integer_increment_is_accepted() -> None:
    c = CountMinSketch(8, 2)
    assert c.incrby(["a"], np.int32(3)) == [3]


def test_pickling_an_engine_says_what_to_do() -> None:
    r = fastrank.Engine()
    with pytest.raises(TypeError) as info:
        pickle.dumps(r)
    assert str(info.value) == E.ENGINE_NOT_PICKLABLE
    assert "engine.save(path)" in str(info.value)
