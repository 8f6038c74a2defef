"""Seasons on every backend: rollover freezes the old season, standings read it,
periodic boards derive the season from the time and let old periods expire."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from fastrank import Leaderboard


def ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def test_rollover_freezes_and_archives(client):
    board = Leaderboard(client, "league", season="s1", ranking="dense")
    board.submit("ann", 10, at=1)
    board.submit("bob", 20, at=2)
    board.set_info("ann", {"name": "Ann"})
    late = Leaderboard(client, "league", season="s1", ranking="dense")     # a process still on s1
    board.rollover("s2", archive=3600)
    assert board.season == "s2" and board.current_season() == "s2"
    old_keys = board.keys("s1")
    assert all(0 < client.ttl(k) <= 3600 for k in old_keys if client.exists(k))
    before = client.zrange(old_keys[0], 0, -1, withscores=True)
    with pytest.raises(ValueError, match="frozen"):
        late.submit("ann", 5, at=3)
    with pytest.raises(ValueError, match="frozen"):
        late.remove("bob")
    assert client.zrange(old_keys[0], 0, -1, withscores=True) == before
    board.submit("ann", 1, at=4)
    assert [(e.player, e.points) for e in board.top()] == [("ann", 1)]
    assert [(e.rank, e.player, e.points) for e in board.standings("s1")] == [(1, "bob", 20), (2, "ann", 10)]
    assert board.standings("s1", 1, with_info=True)[0].info is None
    assert board.standings("s1", 2, with_info=True)[1].info == {"name": "Ann"}


def test_rollover_without_archive_keeps_the_season(client):
    board = Leaderboard(client, "cup", season=2025)
    board.submit("ann", 3, at=1)
    board.rollover(2026)
    assert client.ttl(board.keys(2025)[0]) == -1
    assert board.standings(2025)[0].points == 3 and board.count() == 0


# Periods far ahead: a board refuses a write dated in a period its retention
# has already dropped, so dates near today would stop working in a few days.


def test_daily_board_with_retain(client):
    board = Leaderboard(client, "daily", period="day", retain=2)
    day1 = datetime(2098, 12, 1, 9, 30, tzinfo=timezone.utc)
    board.submit("ann", 5, at=day1)
    board.submit("ann", 7, at=day1 + timedelta(hours=14))     # still Dec 1 (23:30)
    board.submit("ann", 1, at=day1 + timedelta(days=1))
    board.submit("bob", 4, at=day1 + timedelta(days=1))
    assert [(e.player, e.points) for e in board.standings("2098-12-01")] == [("ann", 12)]
    assert [(e.player, e.points) for e in board.standings("2098-12-02")] == [("bob", 4), ("ann", 1)]
    dec1 = board.keys("2098-12-01")[0]
    # readable on Dec 1 and two more days, gone when Dec 4 starts
    assert client.pexpiretime(dec1) == ms(datetime(2098, 12, 4, tzinfo=timezone.utc))
    assert client.pexpiretime(board.keys("2098-12-02")[0]) == ms(datetime(2098, 12, 5, tzinfo=timezone.utc))


def test_weekly_and_monthly_seasons_in_a_timezone(client):
    weekly = Leaderboard(client, "weekly", period="week", tz="Europe/Paris", retain=0)
    sunday_night = datetime(2098, 12, 7, 23, 30, tzinfo=timezone.utc)      # Monday 00:30 in Paris
    weekly.submit("ann", 1, at=sunday_night)
    assert weekly.standings("2098-W50")[0].player == "ann"
    monday_paris = datetime(2098, 12, 15, tzinfo=timezone(timedelta(hours=1)))
    assert client.pexpiretime(weekly.keys("2098-W50")[0]) == ms(monday_paris)
    monthly = Leaderboard(client, "monthly", period="month")
    monthly.submit("ann", 2, at=datetime(2026, 12, 31, 23, 59, tzinfo=timezone.utc))
    monthly.submit("ann", 3, at=datetime(2027, 1, 1, tzinfo=timezone.utc))
    assert monthly.standings("2026-12")[0].points == 2 and monthly.standings("2027-01")[0].points == 3
    assert client.ttl(monthly.keys("2026-12")[0]) == -1                    # no retain: kept


def test_periodic_reads_default_to_the_current_period(client):
    board = Leaderboard(client, "today", period="day")
    board.submit("ann", 9)                                     # now
    assert board.top()[0].points == 9 and board.rank("ann") == 1
    assert board.current_season() == datetime.now(timezone.utc).strftime("%Y-%m-%d")


@pytest.mark.parametrize("options, text", [
    ({"period": "year"}, "period"),
    ({"period": "day", "season": "s1"}, "not both"),
    ({"retain": 3}, "retain needs a period"),
    ({"period": "day", "retain": -1}, "retain"),
])
def test_bad_season_options(client, options, text):
    with pytest.raises(ValueError, match=text):
        Leaderboard(client, "bad", **options)


def test_rollover_is_for_named_seasons(client):
    with pytest.raises(ValueError, match="periodic"):
        Leaderboard(client, "p", period="day").rollover("x")
    with pytest.raises(ValueError, match="archive"):
        Leaderboard(client, "q", season="a").rollover("b", archive=0)
