"""RangePartitionedLeaderboard on the three backends: every read answers what a
plain Leaderboard fed the same events answers; crossing a bound moves a player
atomically; the bounds live in the descriptor; rebalance (interrupted too)
ends exact; bad input is refused and changes nothing; the asyncio face
answers as the sync one."""
from __future__ import annotations

import asyncio
import math
import random

import pytest

import fastrank
import fastrank.asyncio
from fastrank import BoardConfigMismatch, Leaderboard, RangePartitionedLeaderboard, SeasonFrozen
from fastrank.leaderboard.bands import band_at, bucket_at
from fastrank.runner import run

RANKINGS = ["ordinal", "competition", "dense"]
EVENTS = [("ann", 1200), ("bob", 40), ("cy", 5200), ("dee", 1200), ("eve", 999), ("fay", 5000), ("gus", 40),
          ("hal", 3000), ("ivy", 7000), ("jo", 1)]


class Stop(Exception):
    """Interrupts a plan part-way."""


def cut(plan, steps):
    """``plan`` stopped (Stop) after ``steps`` of its steps ran."""
    step = next(plan)
    for _ in range(steps):
        reply = yield step
        try:
            step = plan.send(reply)
        except StopIteration as done:
            return done.value
    plan.close()
    raise Stop()


def feed(*boards, events=EVENTS, start=100):
    for tick, (player, points) in enumerate(events, start):
        for board in boards:
            board.submit(player, points, at=tick)


def assert_same(banded, plain, players):
    assert banded.count() == plain.count()
    assert banded.top(100) == plain.top(100)
    for n in (0, 1, 3, 7):
        assert banded.top(n) == plain.top(n)
    for player in players:
        assert banded.score(player) == plain.score(player)
        assert banded.rank(player) == plain.rank(player)
        assert banded.bucket(player) == plain.bucket(player)
        for radius in (0, 1, 3):
            assert banded.around(player, radius) == plain.around(player, radius)


@pytest.mark.parametrize("ranking", RANKINGS)
def test_reads_equal_a_plain_board(client, ranking):
    banded = RangePartitionedLeaderboard(client, "bands", bounds=[1000, 5000], ranking=ranking)
    plain = Leaderboard(client, "plain", ranking=ranking)
    feed(banded, plain)
    players = [p for p, _ in EVENTS] + ["nobody"]
    assert_same(banded, plain, players)
    assert banded.band_sizes() == [4, 3, 3]
    assert [banded.band_of(p) for p in ("jo", "ann", "fay", "nobody")] == [0, 1, 2, None]
    assert banded.rank("dee", ranking="ordinal") == plain.rank("dee", ranking="ordinal")


def test_ascending_board_counts_the_lower_bands_as_better(client):
    banded = RangePartitionedLeaderboard(client, "golf", bounds=[70, 80], order="asc", ranking="competition")
    plain = Leaderboard(client, "golf-plain", order="asc", ranking="competition")
    feed(banded, plain, events=[("a", 68), ("b", 75), ("c", 90), ("d", 75), ("e", 70), ("f", 79)])
    assert_same(banded, plain, ["a", "b", "c", "d", "e", "f"])


def test_crossing_a_bound_moves_the_player_in_one_write(client):
    board = RangePartitionedLeaderboard(client, "cross", bounds=[10, 20], ranking="dense")
    plain = Leaderboard(client, "cross-plain", ranking="dense")
    feed(board, plain, events=[("a", 5), ("b", 15), ("c", 25)])
    assert board.band_of("a") == 0
    assert board.submit("a", 7, at=200) == 12 == plain.submit("a", 7, at=200)        # 0 -> 1
    assert board.band_of("a") == 1 and board.band_sizes() == [0, 2, 1]
    assert board.set_points("c", 1, at=201) == 1 == plain.set_points("c", 1, at=201)  # 2 -> 0, downwards
    assert board.band_sizes() == [1, 2, 0]
    assert board.submit("b", 100, at=202, rule="best") == 100
    plain.submit("b", 100, at=202, rule="best")
    assert board.submit_many({"a": 30, "c": 9}, at=203) == [42, 10] == plain.submit_many({"a": 30, "c": 9}, at=203)
    assert board.band_sizes() == [0, 1, 2]
    assert_same(board, plain, ["a", "b", "c"])
    # the keys hold each player once, in the band of their points
    members = [set(client.zrange(keys[0], 0, -1)) for keys in board.bands]
    assert sum(len(m) for m in members) == 3 and not set.intersection(*members)
    assert board.remove("b") and not board.remove("b")
    plain.remove("b")
    assert_same(board, plain, ["a", "b", "c"])


def test_the_bounds_live_in_the_descriptor(client, other_client):
    board = RangePartitionedLeaderboard(client, "desc", bounds=[10, 20.5], ranking="competition")
    board.submit("a", 15, at=100)
    again = RangePartitionedLeaderboard(other_client, "desc")
    assert again.bounds == (10, 20.5) and again.ranking == "competition" and again.rank("a") == 1
    assert RangePartitionedLeaderboard(other_client, "desc", bounds=(10.0, 20.5)).bounds == (10, 20.5)
    with pytest.raises(BoardConfigMismatch) as info:
        RangePartitionedLeaderboard(other_client, "desc", bounds=[10, 30])
    assert info.value.option == "bounds"
    with pytest.raises(BoardConfigMismatch):
        RangePartitionedLeaderboard(other_client, "desc", ranking="dense")
    with pytest.raises(BoardConfigMismatch):
        Leaderboard(other_client, "desc")               # another kind under the name
    Leaderboard(client, "plainname")
    with pytest.raises(BoardConfigMismatch):
        RangePartitionedLeaderboard(client, "plainname")
    assert client.hget(board.descriptor_key, "kind") == b"bands"


BAD_BOUNDS = [([], ValueError), ([5, 5], ValueError), ([10, 5], ValueError), ([1, math.nan], ValueError),
              ([math.inf], ValueError), (list(range(16)), ValueError), ("10,20", TypeError), (10, TypeError),
              ([1, "2"], TypeError), ([True], TypeError), ([1, None], TypeError)]


@pytest.mark.parametrize("bounds,error", BAD_BOUNDS, ids=[repr(b)[:20] for b, _ in BAD_BOUNDS])
def test_bad_bounds_are_refused(client, bounds, error):
    with pytest.raises(error):
        RangePartitionedLeaderboard(client, "bad", bounds=bounds)
    assert not client.exists("{lb:bad}:board")
    board = RangePartitionedLeaderboard(client, "bad", bounds=[10])
    board.submit("a", 5, at=100)
    with pytest.raises(error):
        board.rebalance(bounds)
    assert board.bounds == (10,) and board.band_sizes() == [1, 0] and board.rank("a") == 1


def test_bad_input_changes_nothing(client):
    board = RangePartitionedLeaderboard(client, "badin", bounds=[10], point_bits=8, time_bits=20)
    board.submit("a", 5, at=100)
    before = (board.top(10), board.band_sizes())
    for call, error in [(lambda: board.submit("", 1), ValueError), (lambda: board.submit(1.5, 1), TypeError),
                        (lambda: board.submit("b", 1, rule="max"), ValueError),
                        (lambda: board.submit("a", 300, at=101), fastrank.PointsOutOfRange),
                        (lambda: board.submit_many({"b": 3, "a": 251}, at=101), fastrank.PointsOutOfRange),
                        (lambda: board.top(-1), ValueError), (lambda: board.around("a", "x"), TypeError),
                        (lambda: board.rank("a", ranking="dense"), ValueError),
                        (lambda: board.rank("a", ranking="best"), ValueError),
                        (lambda: board.rebalance([20], batch=0), ValueError)]:
        with pytest.raises(error):
            call()
    assert (board.top(10), board.band_sizes()) == before
    for option in ("season", "period"):
        with pytest.raises(ValueError, match="no seasons"):
            RangePartitionedLeaderboard(client, "badin2", **{option: "daily" if option == "period" else "s1"})


@pytest.mark.parametrize("ranking", RANKINGS)
def test_rebalance_keeps_every_answer(client, other_client, ranking):
    board = RangePartitionedLeaderboard(client, "reb", bounds=[1000, 5000], ranking=ranking)
    plain = Leaderboard(client, "reb-plain", ranking=ranking)
    feed(board, plain)
    early = RangePartitionedLeaderboard(other_client, "reb")        # a process on the old layout
    old_keys = [k for keys in board.bands for k in keys]
    assert board.rebalance([50, 1200, 3000, 6000], batch=2) == len(EVENTS)
    assert board.bounds == (50, 1200, 3000, 6000) and board.generation == 2
    assert board.band_sizes() == [3, 1, 2, 3, 1]
    assert_same(board, plain, [p for p, _ in EVENTS])
    assert early.band_sizes() == [3, 1, 2, 3, 1] and early.bounds == board.bounds   # followed the move
    assert early.submit("jo", 2000, at=300) == plain.submit("jo", 2000, at=300)     # writes on the new layout
    assert_same(board, plain, [p for p, _ in EVENTS])
    assert board.rebalance([50, 1200, 3000, 6000]) == 0                              # same bounds: nothing
    with pytest.raises(BoardConfigMismatch):
        RangePartitionedLeaderboard(other_client, "reb", bounds=[1000, 5000])
    assert not client.exists(*old_keys)                                              # the old bands are gone


@pytest.mark.parametrize("steps", [0, 2, 3, 5, 8, 40])
def test_an_interrupted_rebalance_run_again_ends_exact(client, other_client, steps):
    board = RangePartitionedLeaderboard(client, "cut", bounds=[1000, 5000], ranking="competition")
    plain = Leaderboard(client, "cut-plain", ranking="competition")
    feed(board, plain)
    expected = board.top(100)
    try:
        run(client, cut(board._plan_rebalance([100, 2000], batch=2), steps))
    except Stop:
        pass
    # reads stay exact meanwhile, from the old layout
    assert board.top(100) == expected and board.rank("hal") == plain.rank("hal")
    if client.hget(board.descriptor_key, "next"):
        with pytest.raises(SeasonFrozen, match="rebalanced"):
            board.submit("ann", 1, at=400)
    again = RangePartitionedLeaderboard(other_client, "cut")
    again.rebalance([10, 2000, 8000], batch=3)
    assert again.bounds == (10, 2000, 8000)
    assert_same(again, plain, [p for p, _ in EVENTS])
    assert board.submit("ann", 1, at=401) == plain.submit("ann", 1, at=401)           # writable again
    assert_same(board, plain, [p for p, _ in EVENTS])
    assert sum(board.band_sizes()) == len(EVENTS)


def test_an_interrupted_rebalance_back_to_the_same_bounds_unfreezes(client):
    board = RangePartitionedLeaderboard(client, "back", bounds=[10])
    board.submit("a", 15, at=100)
    with pytest.raises(Stop):
        run(client, cut(board._plan_rebalance([20], batch=1), 4))
    with pytest.raises(SeasonFrozen):
        board.submit("a", 1, at=101)
    assert board.rebalance([10]) == 0
    assert board.submit("a", 1, at=102) == 16 and board.band_sizes() == [0, 1]


def test_asyncio_answers_as_sync(client, async_client):
    sync = RangePartitionedLeaderboard(client, "sync", bounds=[1000, 5000], ranking="dense")
    feed(sync)
    sync.rebalance([100, 3000])

    async def main():
        aclient = async_client()
        board = fastrank.asyncio.RangePartitionedLeaderboard(aclient, "async", bounds=[1000, 5000], ranking="dense")
        await board.open()
        for tick, (player, points) in enumerate(EVENTS, 100):
            await board.submit(player, points, at=tick)
        assert await board.rebalance([100, 3000]) == len(EVENTS)
        got = (await board.top(100), await board.rank("hal"), await board.around("ann", 2), await board.count(),
               await board.band_sizes(), await board.band_of("ivy"), await board.score("cy"),
               await board.bucket("ann"), await board.rank_range("ann"))
        assert await board.submit_many({"x": 1}, at=200) == [1]
        assert await board.set_points("x", 2, at=201) == 2
        assert await board.remove("x") is True
        reopened = fastrank.asyncio.RangePartitionedLeaderboard(aclient, "async")
        assert await reopened.rank("hal") == got[1]
        with pytest.raises(TypeError):
            fastrank.asyncio.RangePartitionedLeaderboard(client, "async")
        await aclient.aclose()
        return got

    got = asyncio.run(main())
    assert got == (sync.top(100), sync.rank("hal"), sync.around("ann", 2), sync.count(), sync.band_sizes(),
                   sync.band_of("ivy"), sync.score("cy"), sync.bucket("ann"), sync.rank_range("ann"))


def pareto(players, seed=3):
    rnd = random.Random(seed)
    return [(f"p{i}", min(2 ** 20 - 1, int(10 * rnd.paretovariate(1.16)))) for i in range(players)]


def assert_estimates_within_their_bucket(board, plain, events):
    """Exact ranks outside band 0; in band 0 an estimate that is the best place
    in the player's histogram bucket: estimate <= exact <= estimate + sharing - 1."""
    held = dict((p, plain.score(p)) for p, _ in events if plain.score(p) is not None)
    for style in ("ordinal", "competition"):
        for player, points in held.items():
            exact = plain.rank(player, ranking=style)
            low, high = board.rank_range(player, ranking=style)
            assert board.rank(player, ranking=style) == low
            if band_at(board.bounds, points) > 0:
                assert low == high == exact
            else:
                sharing = sum(1 for p in held.values()
                              if band_at(board.bounds, p) == 0 and bucket_at(board.bounds, p) == bucket_at(
                                  board.bounds, points))
                assert high - low == sharing - 1
                assert low <= exact <= high
                if style == "competition":   # the bucket of the worst place the histogram allows
                    worst = high * 100.0 / plain.count()
                    cut = next((c for c in board.buckets if worst <= c), None)
                    assert board.bucket(player) == (f"top {cut:g}%" if cut else f"bottom {100 - board.buckets[-1]:g}%")
    assert board.top(50) == plain.top(50)
    assert board.around("p1", 3) == plain.around("p1", 3)


def test_approximate_ranks_of_the_lowest_band_stay_within_the_bucket(client, other_client):
    events = pareto(300)
    board = RangePartitionedLeaderboard(client, "approx", bounds=[100, 500], approximate=True)
    plain = Leaderboard(client, "approx-plain")
    feed(board, plain, events=events)
    assert_estimates_within_their_bucket(board, plain, events)
    crossing = [("p1", 95), ("p2", -20), ("p3", 40)]                    # into, out of and inside band 0
    feed(board, plain, events=crossing, start=1000)
    board.remove("p4")
    plain.remove("p4")
    assert_estimates_within_their_bucket(board, plain, events)
    again = RangePartitionedLeaderboard(other_client, "approx")
    assert again.approximate
    again.rebalance([60, 300])                                           # the histogram is built anew
    assert_estimates_within_their_bucket(again, plain, events)
    assert board.rank_range("nobody") is None and board.rank("nobody") is None
    with pytest.raises(BoardConfigMismatch):
        RangePartitionedLeaderboard(other_client, "approx", approximate=False)
    RangePartitionedLeaderboard(client, "exact")
    with pytest.raises(BoardConfigMismatch):
        RangePartitionedLeaderboard(other_client, "exact", approximate=True)


@pytest.mark.parametrize("options,error", [({"order": "asc"}, ValueError), ({"ranking": "dense"}, ValueError),
                                            ({"bounds": [0, 10]}, ValueError), ({"bounds": [-5]}, ValueError)])
def test_approximate_refuses_what_it_cannot_estimate(client, options, error):
    with pytest.raises(error):
        RangePartitionedLeaderboard(client, "noapprox", approximate=True, **options)
    with pytest.raises(TypeError):
        RangePartitionedLeaderboard(client, "noapprox", approximate="yes")
    board = RangePartitionedLeaderboard(client, "noapprox2", bounds=[10], approximate=True)
    board.submit("a", 5, at=100)
    with pytest.raises(ValueError):
        board.rebalance([0, 10])
    assert board.bounds == (10,) and board.rank("a") == 1


def test_the_script_sends_the_error_lines_the_package_names():
    from fastrank import errors
    from fastrank.leaderboard.bands import BANDS

    assert f"local MOVED = '{errors.BANDS_MOVED}'" in BANDS.source
    assert f"local BUSY = '{errors.BANDS_BUSY}'" in BANDS.source
    assert errors.BANDS_MOVED.startswith(errors.BANDS_MOVED_PREFIX)
    assert errors.BANDS_BUSY.startswith(errors.BANDS_BUSY_PREFIX)
