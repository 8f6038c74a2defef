"""A SortedSet gives memory back when it shrinks (arena compaction with
hysteresis), measured with its own accounting (memory_usage). The Engine's
MEMORY USAGE of a key is tested in tests/unit/engine/commands/test_memory.py."""
from __future__ import annotations

import numpy as np

from fastrank import SortedSet


def test_trimmed_million_member_board_gives_back_its_memory() -> None:
    z = SortedSet()
    n = 1_000_000
    z.add_many(np.arange(n), np.arange(n, dtype=np.float64))
    full = z.memory_usage()
    assert z.remove_range_by_rank(0, -1001) == n - 1000     # keep the top 1,000
    fresh = SortedSet()
    fresh.add_many(np.arange(n - 1000, n), np.arange(n - 1000, n, dtype=np.float64))
    assert z.items() == fresh.items()
    assert z.memory_usage() < full / 100                     # gave back > 99%
    assert z.memory_usage() < 4 * fresh.memory_usage()
    z._check()


def test_every_removal_kind_compacts() -> None:
    def big() -> SortedSet:
        z = SortedSet()
        z.add_many(np.arange(20_000), np.arange(20_000, dtype=np.float64))
        return z

    removals = [
        lambda z: z.remove_range_by_rank(0, 18_999),
        lambda z: z.remove_range_by_score(0, 18_999),
        lambda z: z.pop_min(19_000),
        lambda z: z.pop_max(19_000),
        lambda z: [z.remove(i) for i in range(19_000)],
    ]
    for remove in removals:
        z = big()
        full = z.memory_usage()
        remove(z)
        assert len(z) == 1000
        assert z.memory_usage() < full / 5
        z._check()


def test_churn_does_not_compact_every_time() -> None:
    # Right after a compaction the arena is full: it takes losing three
    # quarters again before the next one.  Steady churn (one in, one out)
    # keeps the arena's size instead of compacting again and again.
    z = SortedSet()
    z.add_many(np.arange(100_000), np.arange(100_000, dtype=np.float64))
    full = z.memory_usage()
    z.remove_range_by_rank(0, 89_999)                        # compacts: 10,000 left
    assert z.memory_usage() < full / 5
    z.add("warm-up", 0.5)                                    # the full arena grows once
    z.remove("warm-up")
    settled = z.memory_usage()
    sizes = set()
    for i in range(20_000):
        z.add(f"n{i}", float(i))
        z.remove(f"n{i}")
        sizes.add(z.memory_usage())
    assert sizes == {settled}
    z._check()


def test_compaction_keeps_order_ranks_scores_and_long_members() -> None:
    z = SortedSet()
    members = [("x" * 300 + str(i)) if i % 7 == 0 else str(i) for i in range(30_000)]
    z.add_many(members, [float(i % 97) for i in range(30_000)])
    expect = SortedSet()
    keep = members[::40]
    expect.add_many(keep, [float(members.index(m) % 97) for m in keep])
    for i, m in enumerate(members):
        if i % 40:
            z.remove(m)
    assert z.items() == expect.items()
    assert [z.rank(m) for m in keep] == [expect.rank(m) for m in keep]
    z.add("new", 5.5)
    z._check()
