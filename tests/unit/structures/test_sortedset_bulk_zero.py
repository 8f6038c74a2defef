"""The bulk path of SortedSet.add_many keeps an existing 0.0 when -0.0 comes,
as add() and small batches do (and as Redis, for which the score is equal)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from fastrank import SortedSet


@pytest.mark.parametrize("n", [10, 64, 1000])  # below and at/over the bulk threshold
def test_negative_zero_does_not_replace_zero(n: int) -> None:
    z = SortedSet()
    members = [f"m{i}" for i in range(n)]
    z.add_many(members, [0.0] * n)
    z.add_many(members, [-0.0] * n)
    assert all(math.copysign(1.0, s) == 1.0 for _, s in z.items())
    z._check()


def test_new_members_keep_negative_zero_in_bulk() -> None:
    z = SortedSet()
    z.add_many(np.arange(100), np.full(100, -0.0))
    assert all(math.copysign(1.0, s) == -1.0 for _, s in z.items())


def test_bulk_and_point_adds_agree_bit_for_bit() -> None:
    a, b = SortedSet(), SortedSet()
    members = [f"m{i}" for i in range(200)]
    scores = [0.0 if i % 2 else -0.0 for i in range(200)]
    for z in (a, b):
        z.add_many(members, scores)
    a.add_many(members, [-s for s in scores])              # bulk
    for m, s in zip(members, [-s for s in scores]):         # one by one
        b.add(m, s)
    assert [(m, repr(s)) for m, s in a.items()] == [(m, repr(s)) for m, s in b.items()]
