"""A big SortedSet keeps its tree nodes in a pool of 2 MiB chunks (past
2048 nodes, about 100,000 members; see "THE NODE POOL" in zset.c).  The
pool gives its memory back when the set shrinks, a set may cross the
threshold both ways, and copies of a pooled set are whole sets of their
own.  _check verifies the pool's bookkeeping (slot counts, free lists,
every node where its flag says)."""
from __future__ import annotations

import copy
import pickle
import random

import numpy as np

from fastrank import SortedSet


def packed(members: np.ndarray) -> SortedSet:
    z = SortedSet()
    z.add_many(members, members.astype(np.float64))
    return z


def test_range_removal_gives_the_pools_chunks_back() -> None:
    # 1M packed members hold about 15,600 leaves: seven chunks, 14.7 MB.
    # Kept in the pool (200,000 left) the nodes move into compact chunks;
    # below the threshold (20,000 left) into malloc, and the chunks go.
    n = 1_000_000
    for keep, bound in ((200_000, 0.5), (20_000, 0.05)):
        z = packed(np.arange(n))
        full = z.memory_usage()
        assert z.remove_range_by_score(0, n - keep - 1) == n - keep
        fresh = packed(np.arange(n - keep, n))
        assert z.items() == fresh.items()
        assert z.memory_usage() < full * bound      # the peak pool would stay at 14.7 MB
        assert z.memory_usage() < fresh.memory_usage() * 2
        z._check()


def test_a_set_crosses_the_pool_threshold_up_and_down() -> None:
    rng = random.Random(7)
    members = [f"m{i:07d}" for i in range(200_000)]
    scores = {m: float(rng.randrange(1000)) for m in members}
    z = SortedSet()
    for m in members:                         # one by one: splits, up past 2048 nodes
        z.add(m, scores[m])
    z._check()
    assert z.memory_usage() / len(z) < 90
    gone = members[:]
    rng.shuffle(gone)
    for k, m in enumerate(gone[:198_000]):    # down to 2,000: merges, below the threshold
        assert z.remove(m)
        if k % 45_000 == 0:
            z._check()
    z._check()
    fresh = SortedSet()
    for m in gone[198_000:]:
        fresh.add(m, scores[m])
    assert z.items() == fresh.items()
    # the pool's chunks are gone (they held at least 1.4 MB of nodes)
    assert z.memory_usage() < fresh.memory_usage() + 512 * 1024
    for m in gone[:198_000]:                  # and up again
        z.add(m, scores[m])
    z._check()
    assert z.items() == sorted(((m.encode(), s) for m, s in scores.items()), key=lambda p: (p[1], p[0]))


def test_copies_of_a_pooled_set_are_independent_and_whole() -> None:
    z = packed(np.arange(300_000))
    z.incr_many(np.arange(0, 300_000, 3), np.full(100_000, 0.5))
    z._check()
    items = z.items()
    for c in (z.copy(), copy.copy(z), copy.deepcopy(z), pickle.loads(pickle.dumps(z))):
        c._check()
        assert c.items() == items
        assert c.memory_usage() < z.memory_usage() * 1.1
        c.remove_range_by_rank(0, 199_999)
        c.add("new", -1.0)
        c._check()
        assert len(c) == 100_001
    z._check()
    assert z.items() == items
