"""A board stores its own description (#24): a second process opens it by
name alone, an option that differs raises BoardConfigMismatch, and a sharded
board's layout (shard count, generation) moves safely under other processes.
On the three backends (tests/domain/conftest.py)."""
from __future__ import annotations

import asyncio

import pytest

import fastrank
import fastrank.asyncio
from fastrank import BoardConfigMismatch, Leaderboard, SeasonFrozen, ShardedLeaderboard

OPTIONS = dict(order="asc", tiebreak="latest", ranking="dense", rule="best", point_bits=24, time_bits=29)


def test_a_second_process_opens_a_board_by_name_alone(client):
    made = Leaderboard(client, "arena", season="s1", **OPTIONS)
    made.submit("ann", 30, at=5)
    made.submit("bob", 20, at=6)
    opened = Leaderboard(client, "arena")
    assert (opened.order, opened.tiebreak, opened.ranking, opened.rule, opened.point_bits, opened.time_bits,
            opened.season) == ("asc", "latest", "dense", "best", 24, 29, "s1")
    assert opened.top() == made.top() == [fastrank.Entry(1, "bob", 20), fastrank.Entry(2, "ann", 30)]
    assert opened.submit("bob", 10, at=7) == 10                        # rule best, order asc
    assert made.score("bob") == 10
    # the options given that match the stored ones are fine
    assert Leaderboard(client, "arena", ranking="dense", season="s1").rank("ann") == 2


def test_a_new_board_gets_the_defaults_and_stores_them(client):
    board = Leaderboard(client, "fresh")
    stored = {k.decode(): v.decode() for k, v in client.hgetall(board.descriptor_key).items()}
    assert stored == {"schema": "1", "kind": "board", "season": "", "order": "desc", "tiebreak": "earliest",
                      "ranking": "ordinal", "rule": "incr", "point_bits": "20", "time_bits": "33", "period": "",
                      "tz": "", "retain": ""}
    assert board.descriptor() == stored                  # what the board holds is what is stored
    periodic = Leaderboard(client, "daily", period="week", tz="Europe/Paris", retain=3)
    again = Leaderboard(client, "daily")
    assert (again.period, again.retain, str(again.tz)) == ("week", 3, "Europe/Paris")
    assert again.current_season() == periodic.current_season()


@pytest.mark.parametrize("option, given, stored", [
    ("tiebreak", None, "earliest"), ("point_bits", 10, 20), ("ranking", "dense", "ordinal"),
    ("order", "asc", "desc"), ("rule", "set", "incr"), ("season", "s9", None), ("time_bits", 30, 33),
    ("period", "day", None), ("tz", "Europe/Paris", None),
])
def test_an_option_that_differs_raises_naming_both_values(client, option, given, stored):
    board = Leaderboard(client, "arena")
    board.submit("ann", 51, at=1_000)
    kwargs = {option: given}
    if option == "tz":
        kwargs["period"] = "day"
        option, given, stored = "period", "day", None
    with pytest.raises(BoardConfigMismatch) as caught:
        Leaderboard(client, "arena", **kwargs)
    refused = caught.value
    assert isinstance(refused, ValueError)
    assert (refused.board, refused.option, refused.stored, refused.given) == ("arena", option, stored, given)
    assert f"{option}={stored!r}" in str(refused) and f"{option}={given!r}" in str(refused)
    assert Leaderboard(client, "arena").score("ann") == 51             # the board is as it was


def test_the_issues_examples_raise_instead_of_reporting_wrong_points(client):
    Leaderboard(client, "arena").submit("ann", 12, at=1_000)
    with pytest.raises(BoardConfigMismatch, match="tiebreak='earliest', not tiebreak=None"):
        Leaderboard(client, "arena", tiebreak=None).top()
    with pytest.raises(BoardConfigMismatch, match="point_bits=20, not point_bits=10"):
        Leaderboard(client, "arena", point_bits=10).score("ann")
    assert Leaderboard(client, "arena").score("ann") == 12


def test_one_name_is_one_board_plain_or_sharded(client):
    ShardedLeaderboard(client, "world", shards=2)
    with pytest.raises(BoardConfigMismatch, match="kind"):
        Leaderboard(client, "world")
    Leaderboard(client, "solo")
    with pytest.raises(BoardConfigMismatch, match="kind"):
        ShardedLeaderboard(client, "solo")


def test_a_rollover_moves_the_stored_season(client):
    board = Leaderboard(client, "league", season="s1")
    stale = Leaderboard(client, "league")
    board.submit("ann", 3, at=1)
    board.rollover("s2")
    assert Leaderboard(client, "league").season == "s2"
    with pytest.raises(SeasonFrozen):
        stale.submit("ann", 1, at=2)
    # the stale process rolling over from s1 loses to the rollover made: it learns the season
    with pytest.raises(SeasonFrozen, match="'s2' meanwhile"):
        stale.rollover("s3")
    assert stale.season == "s2" and Leaderboard(client, "league").season == "s2"
    assert stale.standings("s1") == [fastrank.Entry(1, "ann", 3)]


def test_asyncio_boards_open_on_their_first_call(async_client):
    async def main():
        client = async_client()
        try:
            made = fastrank.asyncio.Leaderboard(client, "arena", ranking="competition")
            assert await made.submit("ann", 5, at=1) == 5
            opened = fastrank.asyncio.Leaderboard(client, "arena")
            assert opened.ranking == "ordinal"                # not read yet: nothing sent at construction
            assert await opened.rank("ann") == 1 and opened.ranking == "competition"
            wrong = fastrank.asyncio.Leaderboard(client, "arena", tiebreak=None)
            with pytest.raises(BoardConfigMismatch, match="tiebreak"):
                await wrong.open()
            with pytest.raises(BoardConfigMismatch, match="tiebreak"):
                await wrong.top()
            sharded = fastrank.asyncio.ShardedLeaderboard(client, "world", shards=3)
            await sharded.submit("bob", 2, at=1)
            again = await fastrank.asyncio.ShardedLeaderboard(client, "world").open()
            assert again.shards == 3 and [e.player async for e in again.iter()] == ["bob"]
        finally:
            await client.aclose()

    asyncio.run(main())


def test_a_sync_board_refuses_an_asyncio_client():
    with pytest.raises(TypeError, match="needs a sync client"):
        Leaderboard(fastrank.asyncio.Engine(), "arena")


# -- sharded boards: the layout in the descriptor ---------------------------------


def _fill(board, n=30):
    for i in range(n):
        board.submit(f"p{i:02d}", i % 7 + 1, at=1_000 + i)


def test_a_sharded_board_opens_with_its_stored_shard_count(client):
    made = ShardedLeaderboard(client, "world", shards=3, ranking="dense")
    _fill(made)
    opened = ShardedLeaderboard(client, "world")
    assert (opened.shards, opened.generation, opened.ranking) == (3, 1, "dense")
    assert opened.top(5) == made.top(5) and opened.count() == 30
    with pytest.raises(BoardConfigMismatch, match="shards=3, not shards=5"):
        ShardedLeaderboard(client, "world", shards=5)


def test_a_process_on_an_old_layout_follows_a_reshard(client):
    made = ShardedLeaderboard(client, "world", shards=3, ranking="dense")
    _fill(made)
    expected = made.top(30)
    stale = ShardedLeaderboard(client, "world")
    assert made.reshard(5) == 30 and made.generation == 2
    # reads from the old layout: the first round carries the generation, and the read runs again
    assert stale.top(30) == expected and stale.shards == 5
    stale2 = ShardedLeaderboard(client, "world")
    made.reshard(2)
    # a write to the old (frozen) layout re-plans onto the new one
    assert stale2.submit("new", 9, at=2_000) == 9 and stale2.shards == 2
    assert made.rank("new") == 1 and made.count() == 31
    assert stale2.submit("p00", 1, at=2_001, with_rank=True).points == 2


def test_reshards_never_reuse_key_names(client):
    board = ShardedLeaderboard(client, "world", shards=4)
    _fill(board)
    board.reshard(8)
    board.reshard(4)                                     # back to 4 shards: new names, no old frozen marker
    assert board.generation == 3
    assert board.submit("p01", 5, at=3_000) == 7
    assert ShardedLeaderboard(client, "world").submit("zed", 1, at=3_001) == 1
    assert board.count() == 31
    keys = {k for b in board.boards for k in b.keys()}
    assert all(".g3" in k for k in keys)


def test_past_seasons_and_entry_data_survive_a_reshard(client):
    board = ShardedLeaderboard(client, "cup", shards=2, season="s1", ranking="dense")
    _fill(board, 12)
    board.set_info("p03", {"name": "Ann"})
    before = board.standings("s1", 12, with_info=True)
    board.rollover("s2")
    board.submit("p03", 4, at=5_000)
    board.set_info("p03", {"name": "Ann 2"})
    board.reshard(5)
    assert board.standings("s1", 12, with_info=True) == before
    assert board.info("p03") == {"name": "Ann 2"}
    assert [(e.player, e.points) for e in board.top()] == [("p03", 4)]
    assert all(client.hget(b.keys("s1")[3], "frozen") == b"1" for b in board.boards)  # s1 stays frozen
    assert ShardedLeaderboard(client, "cup").standings("s1", 3) == before[:3]


class Interrupt(Exception):
    pass


@pytest.mark.parametrize("stop_after", [1, 2, 4])
def test_an_interrupted_reshard_run_again_ends_exact(client, stop_after):
    board = ShardedLeaderboard(client, "world", shards=3, ranking="dense")
    _fill(board, 40)
    expected = [(e.rank, e.player, e.points) for e in board.top(40)]
    calls = []

    def progress(moved, total):
        calls.append(moved)
        if len(calls) == stop_after:
            raise Interrupt()

    with pytest.raises(Interrupt):
        board.reshard(4, batch=5, progress=progress)
    reads = ShardedLeaderboard(client, "world")           # reads go on from the old layout meanwhile
    assert [(e.rank, e.player, e.points) for e in reads.top(40)] == expected
    with pytest.raises(SeasonFrozen):                     # writes wait for the reshard
        reads.submit("p01", 1)
    # run again from another process object: it drops the half-made layout first
    assert ShardedLeaderboard(client, "world").reshard(4, batch=5) == 40
    assert [(e.rank, e.player, e.points) for e in board.top(40)] == expected
    counts = {}
    for b in board.boards:
        for field, n in client.hgetall(b.keys()[2]).items():
            counts[field] = counts.get(field, 0) + int(n)
    wanted = {}
    for _, _, points in expected:
        wanted[str(points).encode()] = wanted.get(str(points).encode(), 0) + 1
    assert counts == wanted                                # dense counts not doubled
    assert board.submit("p01", 1) == 3


def test_an_interrupted_reshard_back_to_the_same_count_unfreezes(client):
    board = ShardedLeaderboard(client, "world", shards=3)
    _fill(board, 10)

    def stop(moved, total):
        raise Interrupt()

    with pytest.raises(Interrupt):
        board.reshard(6, batch=2, progress=stop)
    assert board.reshard(3) == 0
    assert board.submit("p01", 1) == 3 and board.count() == 10 and board.shards == 3


# -- entry data is the player's --------------------------------------------------------


@pytest.mark.parametrize("sharded", [False, True], ids=["board", "sharded"])
def test_entry_data_survives_a_rollover_and_a_frozen_season_refuses_it(client, sharded):
    make = (lambda **kw: ShardedLeaderboard(client, "league", shards=2, **kw)) if sharded else (
        lambda **kw: Leaderboard(client, "league", **kw))
    board = make(season="s1")
    stale = make()
    for i in range(30):
        board.submit(f"p{i}", i, at=1_000)
        board.set_info(f"p{i}", {"name": f"P{i}"})
    board.rollover("s2")
    board.set_info("p3", {"name": "Renamed"})
    assert board.info("p1") == {"name": "P1"} and board.info("p3") == {"name": "Renamed"}
    assert board.standings("s1", 30, with_info=True)[-4].info == {"name": "P3"}   # as it was in s1
    with pytest.raises(SeasonFrozen):
        stale.set_info("p1", {"name": "late"})
    assert board.info("p1") == {"name": "P1"}
    assert stale.standings("s1", 30, with_info=True)[-2].info == {"name": "P1"}


def test_a_periodic_sharded_board_keeps_the_periods_its_retention_keeps_across_a_reshard(client):
    from datetime import datetime, timedelta, timezone

    now = datetime.now(timezone.utc)
    board = ShardedLeaderboard(client, "daily", shards=2, period="day", retain=2)
    for i in range(10):
        board.submit(f"p{i}", i + 1, at=now - timedelta(days=1))
        board.submit(f"p{i}", 2 * i + 1, at=now)
    yesterday = board.season_at(now - timedelta(days=1))
    before_past, before_now = board.standings(yesterday, 10), board.top(10)
    stale = ShardedLeaderboard(client, "daily")
    board.reshard(3)
    assert board.standings(yesterday, 10) == before_past and board.top(10) == before_now
    change = stale.submit("p0", 5, at=now - timedelta(days=1), with_rank=True)   # re-planned, in yesterday
    assert (change.points, change.rank) == (6, 6)                                   # p5 reached 6 first
    assert ShardedLeaderboard(client, "daily").score("p0", season=yesterday) == 6
