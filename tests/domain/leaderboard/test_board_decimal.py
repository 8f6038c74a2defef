"""The decimal score form: ``points + fraction`` with the unix second in the
fraction (``score_form="decimal"``), the layout some systems use, with its
precision limit (|points| <= 262,143) computed and enforced. On the three
backends; the Engine's compiled submit path and the Lua scripts store the
same doubles."""
from __future__ import annotations

import math
import random
from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastrank
from fastrank import BoardConfigMismatch, Entry, Leaderboard, PointsOutOfRange, TimeOutOfRange
from fastrank.leaderboard.scorebits import DECIMAL_MAX_POINTS, DECIMAL_TIME_END, ScoreCodec

T = 1_800_000_000


def test_scores_read_as_points_then_time(client):
    board = Leaderboard(client, "dec", score_form="decimal")            # desc, earliest first
    assert board.submit("ann", 10, at=T + 5) == 10
    assert board.submit("bob", 10, at=T) == 10
    assert board.submit("cy", DECIMAL_MAX_POINTS, at=T) == DECIMAL_MAX_POINTS
    assert board.top() == [Entry(1, "cy", DECIMAL_MAX_POINTS), Entry(2, "bob", 10), Entry(3, "ann", 10)]
    stored = dict(client.zrange(board.keys()[0], 0, -1, withscores=True))
    assert stored[b"bob"] == 10 + (DECIMAL_TIME_END - T) / DECIMAL_TIME_END  # points + (1 - t/10**10)
    assert board.reached("ann") == datetime.fromtimestamp(T + 5, timezone.utc)
    assert board.submit("ann", 1, at=T + 9, with_rank=True).rank == 2     # 11 points, reached later
    assert board.reached("ann") == datetime.fromtimestamp(T + 9, timezone.utc)
    assert board.rank("bob") == 3 and board.score("ann") == 11


def test_the_limit_is_enforced_and_nothing_changes(client):
    board = Leaderboard(client, "dec-limit", score_form="decimal", rule="incr")
    board.submit("ann", DECIMAL_MAX_POINTS - 1, at=T)
    before = client.zrange(board.keys()[0], 0, -1, withscores=True)
    with pytest.raises(PointsOutOfRange, match="262143"):
        board.submit("bob", DECIMAL_MAX_POINTS + 1, at=T)
    with pytest.raises(PointsOutOfRange):                                # past the limit by an increment
        board.submit("ann", 2, at=T)
    with pytest.raises(TimeOutOfRange, match="decimal"):
        board.submit("cy", 1, at=DECIMAL_TIME_END)
    with pytest.raises(TimeOutOfRange):
        board.submit("cy", 1, at=0)
    assert client.zrange(board.keys()[0], 0, -1, withscores=True) == before


def test_bad_decimal_layouts_are_refused(client):
    with pytest.raises(ValueError, match="tie-break"):
        Leaderboard(client, "x", score_form="decimal", tiebreak=None)
    with pytest.raises(ValueError, match="point_bits"):
        Leaderboard(client, "x", score_form="decimal", point_bits=30)
    with pytest.raises(ValueError, match="epoch"):
        Leaderboard(client, "x", score_form="decimal", epoch=T)
    with pytest.raises(ValueError, match="score_form"):
        Leaderboard(client, "x", score_form="float")
    assert client.exists("{lb:x}:board") == 0


def test_a_second_process_reads_the_form_and_a_mismatch_is_refused(client, other_client):
    Leaderboard(client, "dec-open", score_form="decimal", order="asc", tiebreak="latest").submit("ann", -4, at=T)
    opened = Leaderboard(other_client, "dec-open")
    assert (opened.score_form, opened.order, opened.tiebreak) == ("decimal", "asc", "latest")
    opened.submit("bob", -4, at=T + 1)                                   # asc, latest first
    assert [e.player for e in opened.top()] == ["bob", "ann"]
    with pytest.raises(BoardConfigMismatch):
        Leaderboard(other_client, "dec-open", score_form="bits")
    with pytest.raises(BoardConfigMismatch):
        Leaderboard(client, "plain").submit("a", 1) and Leaderboard(client, "plain", score_form="decimal")
    assert b"score_form" not in client.hgetall("{lb:plain}:board")         # a default board's descriptor is as before


def test_a_sharded_board_and_asyncio_take_the_decimal_form(client, async_client):
    import asyncio

    import fastrank.asyncio

    sharded = fastrank.ShardedLeaderboard(client, "dec-shards", shards=3, score_form="decimal")
    for i, player in enumerate(["ann", "bob", "cy", "dee"]):
        sharded.submit(player, 100 - (i // 2), at=T + 10 - i)
    assert [e.player for e in sharded.top()] == ["bob", "ann", "dee", "cy"]
    opened = fastrank.ShardedLeaderboard(client, "dec-shards")
    with pytest.raises(PointsOutOfRange):
        opened.submit("eve", DECIMAL_MAX_POINTS + 1, at=T)
    with pytest.raises(BoardConfigMismatch):
        fastrank.ShardedLeaderboard(client, "dec-shards", score_form="bits")

    async def main():
        aclient = async_client()
        try:
            board = await fastrank.asyncio.Leaderboard(aclient, "dec-async", score_form="decimal").open()
            await board.submit("ann", 7, at=T + 1)
            await board.submit("bob", 7, at=T)
            assert [e.player for e in await board.top()] == ["bob", "ann"]
            with pytest.raises(PointsOutOfRange):
                await board.submit("cy", -DECIMAL_MAX_POINTS - 1, at=T)
        finally:
            await aclient.aclose()

    asyncio.run(main())


def test_the_score_service_refuses_a_decimal_board(tmp_path):
    from fastrank.service import ScoreService, SQLiteStore

    board = Leaderboard(fastrank.Engine(), "svc", season="s1", score_form="decimal")
    with pytest.raises(ValueError, match="score_form='decimal'"):
        ScoreService(board, SQLiteStore(str(tmp_path / "s.db")))


@settings(max_examples=300, deadline=None)
@given(points=st.integers(-DECIMAL_MAX_POINTS, DECIMAL_MAX_POINTS),
       seconds=st.integers(1, DECIMAL_TIME_END - 1), later=st.integers(1, 10 ** 6),
       order=st.sampled_from(["desc", "asc"]), tiebreak=st.sampled_from(["earliest", "latest"]))
def test_every_score_round_trips_and_orders(points, seconds, later, order, tiebreak):
    """At the limit's magnitudes the double still tells two seconds apart:
    points and second read back exactly, and the better time sorts first."""
    codec = ScoreCodec(order=order, tiebreak=tiebreak, point_bits=20, time_bits=33, form="decimal")
    score = codec.encode(points, codec.low_of(seconds))
    assert (codec.points(score), codec.seconds(score)) == (points, seconds)
    assert codec.points(repr(score)) == points                          # as the scripts' text
    other = min(seconds + later, DECIMAL_TIME_END - 1)
    if other != seconds:
        second = codec.encode(points, codec.low_of(other))
        first_better = (score > second) == (order == "desc")
        assert first_better == (tiebreak == "earliest")
    if abs(points) < DECIMAL_MAX_POINTS:
        assert math.floor(codec.encode(points + 1, codec.low_of(seconds))) == points + 1


def test_above_the_limit_two_seconds_can_share_a_score():
    """Why the limit is 2**18 - 1: one point more and two seconds collide."""
    t = 1_700_000_000
    assert DECIMAL_MAX_POINTS + (t / 10 ** 10) != DECIMAL_MAX_POINTS + ((t + 1) / 10 ** 10)
    collides = [s for s in range(t, t + 200) if 2 ** 20 + s / 10 ** 10 == 2 ** 20 + (s + 1) / 10 ** 10]
    assert collides


def play(client, seed):
    rnd = random.Random(seed)
    board = Leaderboard(client, "dec-mix", score_form="decimal", ranking="dense")
    replies = []
    for _ in range(60):
        player = rnd.choice(["ann", "bob", "cy", "dee"])
        points = rnd.choice([DECIMAL_MAX_POINTS, -DECIMAL_MAX_POINTS, rnd.randrange(-50, 50), 0])
        at = rnd.choice([1, DECIMAL_TIME_END - 1, T, T + rnd.randrange(100), DECIMAL_TIME_END])
        try:
            replies.append(board.submit(player, points, at=at, rule=rnd.choice(["incr", "best", "set"]),
                                        with_rank=rnd.random() < 0.5))
        except ValueError as exc:
            replies.append((type(exc).__name__, str(exc)))
        replies.append((board.top(10), board.rank(player), board.reached(player)))
    replies.append(client.zrange(board.keys()[0], 0, -1, withscores=True))
    return replies


@pytest.mark.parametrize("seed", range(3))
def test_the_engine_stores_what_redis_stores(redis_client, seed):
    assert play(fastrank.Engine(), seed) == play(redis_client, seed)
