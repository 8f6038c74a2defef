"""Scores that do not fit the 1970 layout (#27): time counted from the
board's own epoch at a chosen tick, and a subscore that breaks ties before
time. On the three backends (tests/domain/conftest.py): on the Engine the
submit script runs as its compiled native path, on Redis and the Cluster as
Lua, and the answers are the same."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

import fastrank
from fastrank import BoardConfigMismatch, Entry, Leaderboard, PointsOutOfRange, TimeOutOfRange

SEASON = datetime(2026, 12, 1, tzinfo=timezone.utc)
T0 = int(SEASON.timestamp())
DAY = 86_400
BIG = 2 ** 30 - 1  # 1,073,741,823: the largest points with 30 point bits


def season_board(client, name="season", **options):
    """A 90-day season at one second: 23 time bits, 30 point bits."""
    return Leaderboard(client, name, epoch=SEASON, tick="1s", point_bits=30, time_bits=23, **options)


def test_big_points_keep_the_tie_break(client):
    board = season_board(client)
    assert board.submit("ann", BIG, at=T0 + 90 * DAY - 1) == BIG     # the last second of the season
    assert board.submit("bob", BIG, at=T0 + 10) == BIG                 # same points, earlier
    assert board.submit("cy", 4_194_304, at=T0) == 4_194_304           # above today's 4,194,303
    assert board.top() == [Entry(1, "bob", BIG), Entry(2, "ann", BIG), Entry(3, "cy", 4_194_304)]
    assert board.reached("ann") == datetime.fromtimestamp(T0 + 90 * DAY - 1, timezone.utc)
    assert board.reached("bob") == datetime.fromtimestamp(T0 + 10, timezone.utc)
    assert board.rank("ann") == 2 and board.score("cy") == 4_194_304
    with pytest.raises(PointsOutOfRange):
        board.submit("dee", BIG + 1, at=T0)
    with pytest.raises(PointsOutOfRange):                             # an incr past the bits: checked in the script
        board.submit("ann", 1, at=T0 + 20)
    assert board.score("ann") == BIG and board.score("dee") is None


@pytest.mark.parametrize("tiebreak", ["earliest", "latest"])
@pytest.mark.parametrize("order", ["desc", "asc"])
def test_ties_break_by_subscore_then_time(client, order, tiebreak):
    board = Leaderboard(client, "sub", order=order, tiebreak=tiebreak, epoch=T0, tick="1min",
                        point_bits=30, subscore_bits=10, time_bits=13)
    board.submit("low-sub", 500, subscore=3, at=T0 + 60)
    board.submit("hi-sub-late", 500, subscore=900, at=T0 + 600)
    board.submit("hi-sub-early", 500, subscore=900, at=T0 + 120)
    board.submit("zero-sub", 500, at=T0)                                 # no subscore: 0
    board.submit("other", 700 if order == "desc" else 300, subscore=0, at=T0)
    by_sub = ["low-sub", "zero-sub"] if order == "asc" else ["hi-sub-early", "hi-sub-late"]
    first, second = (["hi-sub-early", "hi-sub-late"] if tiebreak == "earliest" else ["hi-sub-late", "hi-sub-early"])
    if order == "desc":
        expected = ["other", first, second, "low-sub", "zero-sub"]
    else:
        expected = ["other", "zero-sub", "low-sub", first, second]
    assert [e.player for e in board.top(10)] == expected, by_sub
    assert board.subscore("hi-sub-late") == 900 and board.subscore("zero-sub") == 0
    assert board.subscore("nobody") is None
    assert board.reached("hi-sub-late") == datetime.fromtimestamp(T0 + 600, timezone.utc)
    assert all(e.points == 500 for e in board.top(10) if e.player != "other")
    with pytest.raises(PointsOutOfRange):
        board.submit("x", 1, subscore=1024, at=T0)
    with pytest.raises(ValueError):
        board.submit("x", 1, subscore=-1, at=T0)
    assert board.score("x") is None


def test_a_tick_of_an_hour_counts_whole_hours(client):
    board = Leaderboard(client, "hours", epoch=T0, tick="1h", point_bits=40, time_bits=13)
    board.submit("ann", 2 ** 40 - 1, at=T0 + 3600 + 3599)              # the same hour as bob: a tie
    board.submit("bob", 2 ** 40 - 1, at=T0 + 3600)
    board.submit("cy", 2 ** 40 - 1, at=T0 + 3599)                      # the hour before: ranks first
    assert [e.player for e in board.top()][0] == "cy"
    assert board.reached("ann") == board.reached("bob") == datetime.fromtimestamp(T0 + 3600, timezone.utc)


def test_a_time_outside_the_span_is_refused_and_nothing_changes(client):
    board = season_board(client)
    board.submit("ann", 10, at=T0 + 5)
    before = sorted(client.zrange(board.keys()[0], 0, -1, withscores=True))
    for at in (T0 - 1, T0 + 2 ** 23, SEASON.replace(year=2027, month=6)):
        with pytest.raises(TimeOutOfRange) as caught:
            board.submit("ann", 10, at=at)
        assert isinstance(caught.value, ValueError) and "outside the span" in str(caught.value)
        with pytest.raises(TimeOutOfRange):
            board.submit_many({"bob": 1, "ann": 2}, at=at)
    assert sorted(client.zrange(board.keys()[0], 0, -1, withscores=True)) == before
    assert board.score("bob") is None and board.score("ann") == 10


def test_a_second_process_keeps_epoch_and_tick_and_a_mismatch_is_refused(client):
    made = Leaderboard(client, "arena", epoch=SEASON, tick="1min", point_bits=30, subscore_bits=8, time_bits=15)
    made.submit("ann", BIG, subscore=5, at=T0 + 120)
    opened = Leaderboard(client, "arena")
    assert (opened.epoch, opened.tick, opened.subscore_bits, opened.point_bits, opened.time_bits) == (
        T0, "1min", 8, 30, 15)
    assert opened.subscore("ann") == 5 and opened.score("ann") == BIG
    assert opened.reached("ann") == datetime.fromtimestamp(T0 + 120, timezone.utc)
    assert Leaderboard(client, "arena", epoch=T0, tick="1min").top() == [Entry(1, "ann", BIG)]  # the same, as seconds
    for option, given, stored in [("epoch", T0 + 1, T0), ("tick", "1s", "1min"), ("subscore_bits", 0, 8)]:
        with pytest.raises(BoardConfigMismatch) as caught:
            Leaderboard(client, "arena", **{option: given})
        assert (caught.value.option, caught.value.stored, caught.value.given) == (option, stored, given)
    # a default board stores what it always stored, and a process naming the defaults opens it
    plain = Leaderboard(client, "plain")
    assert b"epoch" not in client.hgetall(plain.descriptor_key)
    assert Leaderboard(client, "plain", epoch=0, tick="1s", subscore_bits=0).epoch == 0
    with pytest.raises(BoardConfigMismatch):
        Leaderboard(client, "plain", epoch=SEASON)


def test_bad_layouts_are_refused(client):
    with pytest.raises(ValueError):
        Leaderboard(client, "x", point_bits=30, subscore_bits=10, time_bits=14)   # 54 bits
    with pytest.raises(ValueError):
        Leaderboard(client, "x", tick="2s")
    with pytest.raises(ValueError):
        Leaderboard(client, "x", tiebreak=None, subscore_bits=4)
    with pytest.raises(ValueError):
        Leaderboard(client, "x", epoch=0.5)
    with pytest.raises(ValueError):
        Leaderboard(client, "y").submit("ann", 1, subscore=1)          # a board without a subscore
    assert fastrank.TimeOutOfRange.__module__ == "fastrank"


def play_big(client, seed, order, tiebreak, ranking):
    """Random submits (big points, subscores, times across the span, every rule,
    ranks back) and reads on a board of 30 point, 8 subscore and 15 time bits at
    one minute; the replies (errors as texts)."""
    import random

    rnd = random.Random(seed)
    board = Leaderboard(client, "mix", order=order, tiebreak=tiebreak, ranking=ranking, epoch=SEASON,
                        tick="1min", point_bits=30, subscore_bits=8, time_bits=15)
    players = ["ann", "bob", "cy", "dee", "eve"]
    replies = []
    for _ in range(60):
        player = rnd.choice(players)
        points = rnd.choice([BIG, BIG - 1, -BIG, 2 ** 29, rnd.randrange(-BIG, BIG + 1), rnd.randrange(0, 4)])
        at = T0 + rnd.choice([0, 59, 60, 2 ** 15 * 60 - 1, rnd.randrange(0, 2 ** 15 * 60), 2 ** 15 * 60])
        subscore = rnd.choice([None, 0, 255, 256, rnd.randrange(0, 256)])
        try:
            replies.append(board.submit(player, points, at=at, subscore=subscore,
                                        rule=rnd.choice(["incr", "best", "set", "decr"]),
                                        with_rank=rnd.random() < 0.5))
        except ValueError as exc:
            replies.append((type(exc).__name__, str(exc)))
        replies.append((board.top(10), board.rank(player), board.subscore(player), board.reached(player)))
    replies.append(client.zrange(board.keys()[0], 0, -1, withscores=True))
    if ranking == "dense":
        replies.append(sorted(client.hgetall(board.keys()[2]).items()))
    return replies


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("order, tiebreak, ranking", [("desc", "earliest", "dense"), ("asc", "latest", "competition"),
                                                      ("desc", "latest", "ordinal")])
def test_the_engine_answers_as_redis_on_big_scores(redis_client, seed, order, tiebreak, ranking):
    """The Engine (the scripts' compiled transcriptions) and Redis (the Lua
    scripts) give the same replies and store the same scores, bit for bit."""
    assert play_big(fastrank.Engine(), seed, order, tiebreak, ranking) == \
        play_big(redis_client, seed, order, tiebreak, ranking)


def test_asyncio_boards_take_epoch_tick_and_subscore(async_client):
    import asyncio

    import fastrank.asyncio

    async def main():
        client = async_client()
        try:
            board = fastrank.asyncio.Leaderboard(client, "async-big", epoch=SEASON, tick="1h", point_bits=36,
                                                 subscore_bits=4, time_bits=13)
            assert await board.submit("ann", 2 ** 36 - 1, subscore=3, at=T0 + 7200) == 2 ** 36 - 1
            change = await board.submit("bob", 2 ** 36 - 1, subscore=9, at=T0 + 3 * 3600, with_rank=True)
            assert (change.rank, change.previous_rank) == (1, None)
            assert [e.player for e in await board.top()] == ["bob", "ann"]
            opened = await fastrank.asyncio.Leaderboard(client, "async-big").open()
            assert (opened.epoch, opened.tick, opened.subscore_bits) == (T0, "1h", 4)
            assert await opened.subscore("ann") == 3
            assert await opened.reached("bob") == datetime.fromtimestamp(T0 + 3 * 3600, timezone.utc)
            with pytest.raises(TimeOutOfRange):
                await opened.submit("cy", 1, at=T0 - 3600)
            with pytest.raises(BoardConfigMismatch):
                await fastrank.asyncio.Leaderboard(client, "async-big", tick="1min").open()
            assert await opened.score("cy") is None
        finally:
            await client.aclose()

    asyncio.run(main())


def test_a_sharded_board_keeps_epoch_tick_and_subscore(client):
    made = fastrank.ShardedLeaderboard(client, "shards-big", shards=3, epoch=SEASON, tick="1min", point_bits=30,
                                       subscore_bits=8, time_bits=15)
    made.submit("ann", BIG, subscore=3, at=T0 + 60)
    assert made.submit("bob", BIG, subscore=9, at=T0 + 120, with_rank=True).rank == 1
    made.submit("cy", BIG, subscore=9, at=T0 + 60)
    opened = fastrank.ShardedLeaderboard(client, "shards-big")
    assert [e.player for e in opened.top()] == ["cy", "bob", "ann"]
    with pytest.raises(TimeOutOfRange):
        opened.submit("dee", 1, at=T0 + 2 ** 15 * 60)
    with pytest.raises(BoardConfigMismatch):
        fastrank.ShardedLeaderboard(client, "shards-big", epoch=0)
    assert opened.score("dee") is None
