"""Board snapshots: frozen labelled copies, their read view, rank changes
since them, bad labels (a clear error, nothing written) and the asyncio face,
on the three backends."""
from __future__ import annotations

import asyncio
from datetime import datetime, timezone

import pytest

import fastrank.asyncio
from fastrank import Leaderboard, RankChange, SnapshotExists, UnknownSnapshot


def rows(entries):
    return [(e.rank, e.player, e.points) for e in entries]


def filled(client, name="arena", **options):
    board = Leaderboard(client, name, **options)
    for i, points in enumerate([50, 40, 40, 30]):
        board.submit(f"p{i}", points, at=1_000 + i)
    return board


def test_a_snapshot_is_frozen_and_read_like_the_board(client):
    board = filled(client)
    before = datetime.now(timezone.utc)
    assert board.snapshot("mon") == 4
    board.submit("p3", 100, at=2_000)
    board.submit("p9", 1, at=2_001)
    board.remove("p0")
    view = board.at_snapshot("mon")
    assert rows(view.top(3)) == [(1, "p0", 50), (2, "p1", 40), (3, "p2", 40)]
    assert view.rank("p3") == 4 and view.rank("p9") is None and view.score("p0") == 50
    assert rows(view.around("p1", 1)) == [(1, "p0", 50), (2, "p1", 40), (3, "p2", 40)]
    assert view.count() == 4 and board.count() == 4
    assert rows(board.top(1)) == [(1, "p3", 130)]
    [info] = board.snapshots()
    assert info.label == "mon" and before.timestamp() - 1 <= info.taken.timestamp() <= datetime.now().timestamp() + 1


def test_rank_change_since_a_snapshot(client):
    board = filled(client)
    board.snapshot("yesterday")
    board.submit("p3", 100, at=2_000)
    board.submit("new", 5, at=2_001)
    board.remove("p1")
    assert board.rank_change("p3", since="yesterday") == RankChange(now=1, then=4, delta=3)
    assert board.rank_change("p0", since="yesterday") == RankChange(2, 1, -1)
    assert board.rank_change("new", since="yesterday") == RankChange(4, None, None)      # absent then
    assert board.rank_change("p1", since="yesterday") == RankChange(None, 2, None)       # absent now
    assert board.rank_change("nobody", since="yesterday") == RankChange(None, None, None)


def test_dense_and_competition_ranks_of_a_snapshot(client):
    board = filled(client, ranking="dense")
    board.snapshot("s")
    board.submit("p0", -20, at=2_000)
    view = board.at_snapshot("s")
    assert view.rank("p3") == 3 and view.rank("p3", ranking="competition") == 4
    assert rows(view.top(4, ranking="dense")) == [(1, "p0", 50), (2, "p1", 40), (2, "p2", 40), (3, "p3", 30)]
    assert board.rank_change("p0", since="s", ranking="competition") == RankChange(3, 1, -2)   # 30: tied third


def test_labels_are_listed_dropped_and_taken_once(client):
    board = filled(client)
    assert board.snapshots() == []
    board.snapshot("a")
    board.snapshot(2026)
    assert [s.label for s in board.snapshots()] == ["a", "2026"]
    with pytest.raises(SnapshotExists):
        board.snapshot("a")
    assert board.drop_snapshot("a") is True and board.drop_snapshot("a") is False
    assert [s.label for s in board.snapshots()] == ["2026"]
    board.submit("p3", 100, at=2_000)
    assert board.snapshot("a") == 4 and board.at_snapshot("a").top(1)[0].player == "p3"   # taken again


def test_snapshots_belong_to_the_season_and_reopen_by_name(client, other_client):
    board = filled(client, season="s1")
    board.snapshot("end")
    opened = Leaderboard(other_client, "arena")
    assert [s.label for s in opened.snapshots()] == ["end"]
    assert rows(opened.at_snapshot("end").top(1)) == [(1, "p0", 50)]
    board.rollover("s2", archive=3600)
    assert board.snapshots() == []                                  # the new season has none yet
    assert 0 < client.ttl("{lb:arena:s1}:snap:end") <= 3600         # expires with the season (archive)
    assert rows(board.standings("s1", 1)) == [(1, "p0", 50)]


def test_an_empty_board_snapshots_as_empty(client):
    board = Leaderboard(client, "empty")
    assert board.snapshot("x") == 0
    assert board.at_snapshot("x").top() == [] and board.at_snapshot("x").count() == 0


@pytest.mark.parametrize("label, error", [("", ValueError), ("a{b}", ValueError)])
def test_bad_labels_change_nothing(client, label, error):
    board = filled(client)
    with pytest.raises(error):
        board.snapshot(label)
    with pytest.raises(error):
        board.at_snapshot(label)
    assert board.snapshots() == []


def test_unknown_labels_are_refused(client):
    board = filled(client)
    board.snapshot("mon")
    view = board.at_snapshot("tue")
    for read in (view.top, view.count, lambda: view.rank("p0"), lambda: view.score("p0"),
                 lambda: view.around("p0"), lambda: board.rank_change("p0", since="tue")):
        with pytest.raises(UnknownSnapshot, match="tue"):
            read()
    board.drop_snapshot("mon")
    with pytest.raises(UnknownSnapshot):
        board.at_snapshot("mon").top()
    assert client.exists("{lb:arena}:snap:mon") == 0


def test_asyncio_face(async_client):
    async def main():
        board = fastrank.asyncio.Leaderboard(async_client(), "async")
        await board.submit_many({"a": 3, "b": 2}, at=1_000)
        assert await board.snapshot("before") == 2
        await board.submit("b", 5, at=1_001)
        view = board.at_snapshot("before")
        assert rows(await view.top()) == [(1, "a", 3), (2, "b", 2)]
        assert (await view.rank("b"), await view.score("b"), await view.count()) == (2, 2, 2)
        assert rows(await view.around("a", 0)) == [(1, "a", 3)]
        assert await board.rank_change("b", since="before") == RankChange(1, 2, 1)
        assert [s.label for s in await board.snapshots()] == ["before"]
        with pytest.raises(SnapshotExists):
            await board.snapshot("before")
        assert await board.drop_snapshot("before") is True
        with pytest.raises(UnknownSnapshot):
            await board.rank_change("b", since="before")
        fresh = fastrank.asyncio.Leaderboard(async_client(), "async")   # not opened yet: the view opens it
        with pytest.raises(UnknownSnapshot):
            await fresh.at_snapshot("before").top()
    asyncio.run(main())
