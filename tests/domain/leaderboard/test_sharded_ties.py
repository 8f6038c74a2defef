"""ShardedLeaderboard with mass ties (thousands of players on a few exact scores)
answers exactly as one Leaderboard: tied players ordered by member bytes, never by
the server's locale, on the Engine, Redis and the Cluster."""
from __future__ import annotations

import itertools

import pytest

from fastrank import Leaderboard, ShardedLeaderboard

T0 = 1_790_000_000
_names = itertools.count()
LOCALE_BAIT = ["a", "B", "é", "Z", "aa", "b", "\x7f", "A\x00"]  # byte order differs from most locales'
PLAYERS = LOCALE_BAIT + [f"p{i}" for i in range(2000)]


def boards(client, order):
    name = f"ties{next(_names)}"
    options = {"order": order, "tiebreak": None, "ranking": "dense", "passed": 4}
    return Leaderboard(client, name, **options), ShardedLeaderboard(client, name + "s", shards=3, **options)


def points_of(i):
    return (i * 7) % 5 * 10  # 5 distinct values, ~400 players each


@pytest.mark.parametrize("order", ["desc", "asc"])
def test_mass_ties_answer_as_one_board(client, order):
    one, many = boards(client, order)
    results = {p: points_of(i) for i, p in enumerate(PLAYERS)}
    for b in (one, many):
        b.submit_many(results, at=T0)
    assert many.count() == one.count() == len(PLAYERS)
    sample = LOCALE_BAIT + PLAYERS[8::97] + ["absent"]
    for p in sample:
        for style in ("ordinal", "competition", "dense"):
            assert many.rank(p, ranking=style) == one.rank(p, ranking=style), (p, style)
        for radius in (0, 1, 3):
            assert many.around(p, radius) == one.around(p, radius), (p, radius)
    assert many.friends("a", LOCALE_BAIT + PLAYERS[100:140]) == one.friends("a", LOCALE_BAIT + PLAYERS[100:140])
    assert many.top(12) == one.top(12)
    # moves into and out of tie runs: the passed players come from both edges
    for player, points in [("B", 40), ("é", 30), ("p5", 20), ("zz-new", 10), ("a", 0), ("Z", 40), ("aa", 50)]:
        expected = one.submit(player, points, at=T0 + 1, rule="set", with_rank=True)
        assert many.submit(player, points, at=T0 + 1, rule="set", with_rank=True) == expected, (player, points)
    for p in LOCALE_BAIT + ["zz-new"]:
        assert many.rank(p, ranking="ordinal") == one.rank(p, ranking="ordinal"), p
        assert many.around(p, 2) == one.around(p, 2), p


def test_one_tie_run_in_byte_order(client):
    one, many = boards(client, "desc")
    for b in (one, many):
        b.submit_many({p: 1 for p in LOCALE_BAIT}, at=T0)
    expected = [e.player for e in one.top(len(LOCALE_BAIT))]
    assert expected == sorted(LOCALE_BAIT, key=lambda p: p.encode(), reverse=True)
    assert [many.rank(p, ranking="ordinal") for p in expected] == list(range(1, len(expected) + 1))
    assert [e.player for e in many.around("B", 10)] == expected
