"""SortedSet.add_many's bulk loads against the member-by-member path.

Batches of 64+ pairs whose scores are at or above the set's highest take the
append path (new members sorted and linked after the tail, or linked one by
one when some sort before it; members already present moved at once), and
batches into an empty set or at least 1/8 of its size take the whole-list
bulk load. Each batch must leave exactly what ``add_status`` pair by pair
leaves: the same members, scores (bit for bit), order, ranks and count added,
with the skip list's invariants intact (``_check``).
"""
from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrank._core import SortedSet

members = st.integers(0, 400).map(lambda i: b"m%03d" % i) | st.sampled_from([b"", b"a", b"\xff" * 3, b"L" * 300])
steps = st.sampled_from([0.0, 0.0, 0.5, 1.0, 2.0, 1e-300, math.inf])


def bits(items):
    return [(m, float(s).hex()) for m, s in items]


@st.composite
def tail_batches(draw):
    """(base pairs, batches): each batch's scores are the top so far plus a step."""
    base = draw(st.lists(st.tuples(members, st.floats(-100, 100)), min_size=1, max_size=150))
    top = max(s for _, s in base)
    batches = []
    for _ in range(draw(st.integers(1, 4))):
        size = draw(st.integers(64, 140))
        batch = [(draw(members), top + draw(steps)) for _ in range(size)]
        if draw(st.booleans()):  # one pair below the top: not the append path
            batch[draw(st.integers(0, size - 1))] = (draw(members), top - 1.0)
        batches.append(batch)
        top = max([top] + [s for _, s in batch])
    return base, batches


@settings(max_examples=300, deadline=None)
@given(tail_batches())
def test_batches_from_the_tail_match_pair_by_pair(case):
    base, batches = case
    bulk, single = SortedSet(), SortedSet()
    for m, s in base:
        bulk.add(m, s)
        single.add(m, s)
    for batch in batches:
        added = sum(single.add_status(m, s) == 1 for m, s in batch)
        assert bulk.add_many([m for m, _ in batch], np.array([s for _, s in batch])) == added
        bulk._check()
        assert bits(bulk.items()) == bits(single.items())
        assert [bulk.rank(m) for m, _ in batch] == [single.rank(m) for m, _ in batch]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(members, st.floats(-1e6, 1e6) | st.sampled_from([0.0, -0.0, 7.0])),
                min_size=64, max_size=400),
       st.integers(1, 5))
def test_whole_list_bulk_loads_match_pair_by_pair(pairs, chunks):
    bulk, single = SortedSet(), SortedSet()
    step = -(-len(pairs) // chunks)
    for start in range(0, len(pairs), step):
        part = pairs[start:start + step]
        added = sum(single.add_status(m, s) == 1 for m, s in part)
        assert bulk.add_many([m for m, _ in part], np.array([s for _, s in part])) == added
        bulk._check()
        assert bits(bulk.items()) == bits(single.items())
