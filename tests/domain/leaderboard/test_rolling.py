"""RollingLeaderboard: the rules across slices, staleness, expiry, the
descriptor, bad input (a clear error, nothing written) and the asyncio face,
on the three backends."""
from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

import fastrank.asyncio
from fastrank import BoardConfigMismatch, Leaderboard, PeriodClosed, PointsOutOfRange, RollingLeaderboard
from fastrank.leaderboard.rolling import seconds_of

HOUR = 3600
START = 2_000_000_000  # ahead of the real clock: no slice expires under a test


class Clock:
    def __init__(self) -> None:
        self.now = float(START)

    def __call__(self) -> float:
        return self.now


def rolling(client, name="week", **options):
    clock = options.pop("clock", None) or Clock()
    return RollingLeaderboard(client, name, clock=clock, max_age=options.pop("max_age", 0), **options), clock


def rows(entries):
    return [(e.rank, e.player, e.points) for e in entries]


def test_increments_sum_over_the_window_and_leave_with_their_slice(client):
    board, clock = rolling(client, window="3h", granularity="1h")
    board.submit("ann", 5)
    board.submit_many({"bob": 3, "cy": 4})
    clock.now += HOUR
    board.submit("ann", 1)
    board.submit("cy", 10, at=clock.now - 1)              # dated in the slice before
    assert rows(board.top()) == [(1, "cy", 14), (2, "ann", 6), (3, "bob", 3)]
    clock.now += 2 * HOUR                                  # the first slice leaves the window
    assert rows(board.top()) == [(1, "cy", 10), (2, "ann", 1)]
    assert board.count() == 2 and board.score("bob") is None and board.rank("bob") is None
    clock.now += HOUR
    assert board.top() == [] and board.count() == 0


def test_best_takes_the_best_slice_and_decr_subtracts(client):
    best, clock = rolling(client, "best", rule="best", window="2h", granularity="1h")
    low, _ = rolling(client, "low", rule="best", order="asc", window="2h", granularity="1h", clock=clock)
    down, _ = rolling(client, "down", rule="decr", window="2h", granularity="1h", clock=clock)
    for board in (best, low, down):
        board.submit("ann", 5)
        board.submit("bob", 4)
    clock.now += HOUR
    for board in (best, low, down):
        board.submit("ann", 3)
        board.submit("bob", 7)
    assert rows(best.top()) == [(1, "bob", 7), (2, "ann", 5)]
    assert rows(low.top()) == [(1, "ann", 3), (2, "bob", 4)]
    assert rows(down.top()) == [(1, "ann", -8), (2, "bob", -11)]


def test_competition_ranks_and_around(client):
    board, _ = rolling(client, ranking="competition")
    board.submit_many({"ann": 5, "bob": 5, "cy": 2})
    assert board.rank("cy") == 3 and board.rank("bob") == 1
    assert rows(board.around("cy", 1)) == [(1, "ann", 5), (3, "cy", 2)]
    assert board.rank("cy", ranking="ordinal") == 3


def test_a_read_within_max_age_is_not_refreshed(client):
    board, clock = rolling(client, max_age=60)
    board.submit("ann", 1)
    assert board.score("ann") == 1
    board.submit("ann", 1)
    clock.now += 60
    assert board.score("ann") == 1                         # 60 s old: fresh enough
    clock.now += 1
    assert board.score("ann") == 2                         # older: refreshed first
    board.submit("ann", 1)
    assert board.refresh() == 1 and board.score("ann") == 3


def test_a_slice_expires_at_the_end_of_its_last_window(client):
    board, clock = rolling(client, window="2h", granularity="1h")
    board.submit("ann", 1)
    slice_key = f"{{lb:week}}:slice:{START // HOUR}"
    assert client.pexpiretime(slice_key) == (START // HOUR + 2) * HOUR * 1000
    assert board.window_slices() == [START // HOUR - 1, START // HOUR]
    assert board.window_slices(START + 2 * HOUR) == [START // HOUR + 1, START // HOUR + 2]


def test_the_descriptor_keeps_window_and_granularity(client, other_client):
    board, clock = rolling(client, window="1d", granularity="30m", rule="best", order="asc")
    opened = RollingLeaderboard(other_client, "week", clock=clock)
    assert (opened.window, opened.granularity, opened.rule, opened.order) == (86400, 1800, "best", "asc")
    assert opened.descriptor() == board.descriptor()
    for option in ({"window": "2d"}, {"granularity": "1h"}, {"rule": "incr"}, {"order": "desc"}):
        with pytest.raises(BoardConfigMismatch) as caught:
            RollingLeaderboard(other_client, "week", **option)
        assert caught.value.option == next(iter(option))
    Leaderboard(client, "plain")
    with pytest.raises(BoardConfigMismatch, match="kind"):
        RollingLeaderboard(client, "plain")
    with pytest.raises(BoardConfigMismatch, match="kind"):
        Leaderboard(client, "week")


def test_durations():
    assert [seconds_of(d, "window") for d in ("7d", "1h", "30m", "30min", "45s", "2w", 90, timedelta(hours=2))] == [
        7 * 86400, 3600, 1800, 1800, 45, 14 * 86400, 90, 7200]


@pytest.mark.parametrize("options, error", [
    ({"window": "7 days"}, ValueError), ({"window": "d"}, ValueError), ({"window": "0h"}, ValueError),
    ({"window": -5}, ValueError), ({"window": 1.5}, TypeError), ({"granularity": timedelta(seconds=0.5)}, ValueError),
    ({"window": "7d", "granularity": "5h"}, ValueError),          # does not divide the window
    ({"window": "7d", "granularity": "1min"}, ValueError),        # 10080 slices: too many
    ({"rule": "set"}, ValueError), ({"ranking": "dense"}, ValueError), ({"max_age": -1}, ValueError),
    ({"order": "up"}, ValueError),
])
def test_bad_options_are_refused_and_write_nothing(client, options, error):
    with pytest.raises(error):
        RollingLeaderboard(client, "bad", **options)
    assert client.exists("{lb:bad}:board") == 0


def test_bad_writes_and_reads_change_nothing(client):
    board, clock = rolling(client, window="2h", granularity="1h")
    board.submit("ann", 1)
    with pytest.raises(PeriodClosed):
        board.submit("ann", 5, at=START - 2 * HOUR)              # its slice has left the window
    with pytest.raises(ValueError):
        board.submit("", 5)
    with pytest.raises(TypeError):
        board.submit("ann", "5")
    with pytest.raises(PointsOutOfRange):
        board.submit_many({"bob": 1, "ann": 2 ** 60})
    with pytest.raises(ValueError):
        board.top(-1)
    with pytest.raises(ValueError):
        board.rank("ann", ranking="dense")
    assert rows(board.top()) == [(1, "ann", 1)]


def test_asyncio_face(async_client):
    async def main():
        client = async_client()
        clock = Clock()
        board = fastrank.asyncio.RollingLeaderboard(client, "async", window="2h", granularity="1h", max_age=0,
                                                    clock=clock)
        await board.submit("ann", 2)
        await board.submit_many({"bob": 3})
        clock.now += HOUR
        await board.submit("ann", 2)
        top = await board.top()
        assert rows(top) == [(1, "ann", 4), (2, "bob", 3)]
        assert (await board.rank("bob"), await board.score("ann"), await board.count()) == (2, 4, 2)
        assert rows(await board.around("bob", 0)) == [(2, "bob", 3)]
        assert await board.refresh() == 2
        reopened = await fastrank.asyncio.RollingLeaderboard(client, "async", clock=clock).open()
        assert reopened.window == 7200
        with pytest.raises(BoardConfigMismatch):
            await fastrank.asyncio.RollingLeaderboard(client, "async", window="3h").open()
    asyncio.run(main())


def test_faces_refuse_the_other_kind_of_client(client):
    with pytest.raises(TypeError, match="asyncio"):
        fastrank.asyncio.RollingLeaderboard(client, "x")
