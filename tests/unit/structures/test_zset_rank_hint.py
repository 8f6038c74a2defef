"""The rank hint: a write that moves or adds a member leaves its rank
behind, and the rank read that follows answers from it while nothing else
changed.

Random writes on a set large enough to have many levels, each followed by
a rank read of the member just written and of another, compared with a
sorted model; then each kind of change that does not go through a single
write (a bulk load, one that moves the hinted member itself, a range
removal, a compaction, a clear), made right after a move, followed by the
read that a stale hint would get wrong.  The expected rank there is the
member's place in a walk of the whole set, which no hint touches.
"""
from __future__ import annotations

import random

import numpy as np

from fastrank import SortedSet


def test_the_rank_after_each_write_matches_a_sorted_model() -> None:
    rnd = random.Random(7)
    z, model = SortedSet(), {}
    names = [b"p%d" % i for i in range(3000)]
    for m in names:
        model[m] = float(rnd.randrange(3000))
        z.add(m, model[m])
    for step in range(1500):
        m, other = rnd.choice(names), rnd.choice(names)
        kind = step % 4
        if kind == 0:  # a move, usually past several members
            model[m] = z.incr(m, float(rnd.randint(-60, 60) or 1))
        elif kind == 1:  # a score change that keeps the place
            z.add(m, model[m] + 1e-9)
            model[m] = z.score(m)
        elif kind == 2:  # remove and re-add: a new node at a new place
            z.remove(m)
            model[m] = float(rnd.randrange(3000))
            z.add(m, model[m])
        elif other != m:  # a removal of someone else: the member's hint is stale
            z.remove(other)
            del model[other]
            names.remove(other)
        order = sorted(model, key=lambda k: (model[k], k))
        assert z.rank(m) == order.index(m)
        assert z.rank(m, reverse=True) == len(order) - 1 - order.index(m)
        assert z.rank(other) == (order.index(other) if other in model else None)
    z._check()


def walked_rank(z: SortedSet, member: bytes) -> int:
    return [m for m, _ in z.range(0, -1, withscores=True)].index(member)


def test_changes_that_do_not_go_through_a_single_write_drop_the_hint() -> None:
    z = SortedSet()
    z.add_many(np.arange(5000), np.arange(5000, dtype=np.float64))
    hinted = b"4000"

    def move_and_read() -> None:  # a move past a neighbour leaves the hint; the read uses it
        z.incr(hinted, 1.5)
        assert z.rank(hinted) == walked_rank(z, hinted)

    move_and_read()
    # a bulk load (a batch of at least an eighth of the set) puts 1,000 before it
    z.add_many(np.arange(-1000, 0), np.full(1000, -1.0))
    assert z.rank(hinted) == walked_rank(z, hinted) == 5001
    move_and_read()
    # a bulk load that moves the hinted member itself to the front
    z.add_many(np.array([4000] + list(range(6000, 6999))), np.array([-2.0] + [1e6] * 999))
    assert z.rank(hinted) == walked_rank(z, hinted) == 0
    z.incr(hinted, 4000.0)
    assert z.rank(hinted) == walked_rank(z, hinted)
    z.remove_range_by_rank(0, 99)          # a range removal before it
    assert z.rank(hinted) == walked_rank(z, hinted)
    move_and_read()
    before = z.memory_usage()
    for i in [*range(-1000, 3999), *range(6000, 6999)]:  # enough to compact the arena (new nodes)
        z.remove(i)
    assert z.memory_usage() < before / 2
    assert z.rank(hinted) == walked_rank(z, hinted)
    z._check()
    move_and_read()
    copy = z.copy()                        # a copy keeps the same nodes: the hint holds there
    assert copy.rank(hinted) == z.rank(hinted) == walked_rank(copy, hinted)
    z.clear()
    z.add(b"x", 1.0)
    assert z.rank(b"x") == 0 and z.rank(hinted) is None
