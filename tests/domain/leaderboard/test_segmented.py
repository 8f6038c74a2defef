"""SegmentedLeaderboard on the Engine, Redis and the Cluster, sync and asyncio:
per-segment boards, atomic moves, the global top key and global ranks,
the descriptor, bad input (a clear error, nothing written)."""
from __future__ import annotations

import asyncio
import itertools

import pytest
from redis.cluster import key_slot

import fastrank.asyncio
from fastrank import BoardConfigMismatch, Leaderboard, SegmentedLeaderboard

T0 = 1_790_000_000
_names = itertools.count()


def fresh(client, **options):
    return SegmentedLeaderboard(client, f"seg{next(_names)}", **options)


def filled(client, **options):
    board = fresh(client, **options)
    for second, (player, points, segment) in enumerate([("ann", 10, "eu"), ("bob", 20, "na"), ("cy", 30, "asia"),
                                                        ("dee", 25, "eu"), ("eve", 5, "na")]):
        board.submit(player, points, segment=segment, at=T0 + second)
    return board


def rows(entries):
    return [(e.rank, e.player, e.points) for e in entries]


def test_segments_read_like_their_own_boards(client):
    board = filled(client)
    assert rows(board.top(5, segment="eu")) == [(1, "dee", 25), (2, "ann", 10)]
    assert rows(board.top(5, segment="na")) == [(1, "bob", 20), (2, "eve", 5)]
    assert board.rank("ann") == 2 and board.rank("cy") == 1 and board.rank("nobody") is None
    assert board.segment_of("eve") == "na" and board.segment_of("nobody") is None
    assert board.score("dee") == 25 and board.score("nobody") is None
    assert board.count() == 5 and board.count(segment="eu") == 2


def test_global_reads_are_one_board_of_every_entry(client):
    board = filled(client, global_size=3)
    one = Leaderboard(client, f"plain{next(_names)}")
    for second, (player, points) in enumerate([("ann", 10), ("bob", 20), ("cy", 30), ("dee", 25), ("eve", 5)]):
        one.submit(player, points, at=T0 + second)
    assert rows(board.global_top(3)) == rows(one.top(3))
    for player in ("ann", "bob", "cy", "dee", "eve"):
        assert board.global_rank(player) == one.rank(player)
    assert board.global_rank("nobody") is None


def test_a_move_carries_the_entry_then_the_rule_applies(client):
    board = filled(client)
    assert board.submit("cy", 5, segment="eu", at=T0 + 100) == 35      # incr: 30 carried, +5
    assert board.segment_of("cy") == "eu"
    assert rows(board.top(5, segment="asia")) == []
    assert rows(board.top(5, segment="eu")) == [(1, "cy", 35), (2, "dee", 25), (3, "ann", 10)]
    assert board.submit("cy", 1, segment="na", rule="best") == 35      # best: the carried 35 stays
    assert board.rank("cy") == 1 and board.count(segment="eu") == 2
    assert rows(board.global_top(2)) == [(1, "cy", 35), (2, "dee", 25)]


def test_worse_entries_and_removals_keep_the_global_top_exact(client):
    board = filled(client, global_size=2)
    assert rows(board.global_top(2)) == [(1, "cy", 30), (2, "dee", 25)]
    board.submit("cy", 0, segment="asia", rule="set")                  # left the top: the key is rebuilt
    assert rows(board.global_top(2)) == [(1, "dee", 25), (2, "bob", 20)]
    assert board.remove("dee") is True and board.remove("dee") is False
    assert rows(board.global_top(2)) == [(1, "bob", 20), (2, "ann", 10)]
    assert board.refresh() == 2
    assert rows(board.global_top(1, ranking="competition")) == [(1, "bob", 20)]


def test_approximate_global_rank_is_within_its_bound(client):
    board = fresh(client, bucket_width=10, tiebreak=None)
    scores = {"a": (3, "eu"), "b": (7, "na"), "c": (12, "na"), "d": (15, "asia"), "e": (18, "eu"), "f": (25, "na")}
    for player, (points, segment) in scores.items():
        board.submit(player, points, segment=segment)
    for player, (points, segment) in scores.items():
        others_same = sum(1 for p, s in scores.values() if s != segment and p // 10 == points // 10)
        exact = board.global_rank(player)
        assert exact == 1 + sum(1 for p, _ in scores.values() if p > points)
        assert abs(board.global_rank(player, approximate=True) - exact) <= (others_same + 1) // 2
    assert board.global_rank("f", approximate=True) == 1


def test_every_key_shares_one_hash_tag(client):
    board = filled(client, bucket_width=10)
    keys = [k.decode() for k in client.keys(f"*{board.name}*")] if not hasattr(client, "get_nodes") else [
        k.decode() for node in client.get_primaries() for k in client.keys(f"*{board.name}*", target_nodes=node)]
    assert len(keys) > 5
    assert len({key_slot(k.encode()) for k in keys}) == 1


def test_the_descriptor_holds_the_segments(client, other_client):
    board = fresh(client, segments=("gold", "silver"), global_size=7, bucket_width=5, order="asc")
    board.submit("ann", 3, segment="gold")
    again = SegmentedLeaderboard(other_client, board.name)
    assert again.segments == ("gold", "silver") and again.global_size == 7 and again.bucket_width == 5.0
    assert again.top(3, segment="gold")[0].points == 3
    for changed in ({"segments": ("gold",)}, {"global_size": 8}, {"bucket_width": None}, {"order": "desc"}):
        with pytest.raises(BoardConfigMismatch):
            SegmentedLeaderboard(other_client, board.name, **changed)
    with pytest.raises(BoardConfigMismatch):
        Leaderboard(other_client, board.name)                          # another kind under that name
    plain = Leaderboard(client, f"plain{next(_names)}")
    with pytest.raises(BoardConfigMismatch):
        SegmentedLeaderboard(client, plain.name)


def test_bad_input_is_refused_and_writes_nothing(client):
    board = filled(client, global_size=3)
    before = (rows(board.global_top(3)), rows(board.top(5, segment="eu")), board.count())
    with pytest.raises(ValueError, match="no segment"):
        board.submit("ann", 1, segment="mars")
    with pytest.raises(ValueError):
        board.submit("", 1, segment="eu")
    with pytest.raises(TypeError):
        board.submit(1.5, 1, segment="eu")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        board.submit("ann", 2 ** 40, segment="eu")
    with pytest.raises(ValueError):
        board.submit("ann", 1, segment="eu", rule="double")
    with pytest.raises(ValueError, match="global_size"):
        board.global_top(4)
    with pytest.raises(ValueError, match="histograms"):
        board.global_rank("ann", approximate=True)
    with pytest.raises(ValueError, match="dense"):
        board.global_rank("ann", ranking="dense")
    with pytest.raises(ValueError):
        board.top(-1, segment="eu")
    assert (rows(board.global_top(3)), rows(board.top(5, segment="eu")), board.count()) == before


@pytest.mark.parametrize("options, error", [
    ({"segments": ()}, ValueError), ({"segments": ("eu", "eu")}, ValueError), ({"segments": "eu"}, TypeError),
    ({"segments": ("e u",)}, ValueError), ({"segments": ("a:b",)}, ValueError), ({"global_size": 0}, ValueError),
    ({"global_size": 10_001}, ValueError), ({"bucket_width": 0}, ValueError), ({"bucket_width": "5"}, ValueError),
    ({"ranking": "dense"}, ValueError), ({"season": "s1"}, TypeError), ({"period": "daily"}, TypeError),
])
def test_bad_options_are_refused_before_anything_is_stored(client, options, error):
    name = f"bad{next(_names)}"
    with pytest.raises(error):
        SegmentedLeaderboard(client, name, **options)
    assert client.exists(f"{{lb:{name}}}:board") == 0


EVENTS = [("ann", 10, "eu"), ("bob", 20, "na"), ("cy", 30, "asia"), ("dee", 25, "eu"), ("eve", 5, "na"),
          ("eve", 30, "asia")]


def test_asyncio_answers_as_sync(client, async_client):
    name = f"aio{next(_names)}"
    options = {"global_size": 3, "bucket_width": 10}

    async def main():
        board = fastrank.asyncio.SegmentedLeaderboard(async_client(), name, **options)
        assert (await board.open()).segments == ("eu", "na", "asia")
        news = [await board.submit(p, n, segment=s, at=T0 + i) for i, (p, n, s) in enumerate(EVENTS)]
        got = (news, rows(await board.global_top(3)), rows(await board.top(3, segment="asia")),
               await board.rank("eve"), await board.global_rank("eve"),
               await board.global_rank("ann", approximate=True), await board.segment_of("eve"),
               await board.score("eve"), await board.count(), await board.count(segment="na"),
               await board.remove("ann"), await board.refresh())
        return got

    got = asyncio.run(main())
    board = SegmentedLeaderboard(client, name + "s", **options)
    news = [board.submit(p, n, segment=s, at=T0 + i) for i, (p, n, s) in enumerate(EVENTS)]
    expected = (news, rows(board.global_top(3)), rows(board.top(3, segment="asia")), board.rank("eve"),
                board.global_rank("eve"), board.global_rank("ann", approximate=True), board.segment_of("eve"),
                board.score("eve"), board.count(), board.count(segment="na"), board.remove("ann"), board.refresh())
    assert got == expected
    assert expected[1] == [(1, "eve", 35), (2, "cy", 30), (3, "dee", 25)]
