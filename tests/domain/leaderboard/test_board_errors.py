"""The boards' exception classes (fastrank.SeasonFrozen, PointsOutOfRange,
PeriodClosed), each a ValueError, on the three backends; a refused write
leaves the backend as it was."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
import redis.cluster

import fastrank
from fastrank import Leaderboard, PeriodClosed, PointsOutOfRange, SeasonFrozen, ShardedLeaderboard


def _keys(client):
    """Every key of the backend (of every node of a cluster)."""
    if isinstance(client, redis.cluster.RedisCluster):
        return sorted(client.keys("*", target_nodes=redis.cluster.RedisCluster.ALL_NODES))
    return sorted(client.keys("*"))


def test_the_classes_are_value_errors_and_exported():
    for cls in (SeasonFrozen, PointsOutOfRange, PeriodClosed):
        assert issubclass(cls, ValueError) and getattr(fastrank, cls.__name__) is cls


def test_points_that_do_not_fit(client):
    board = Leaderboard(client, "small")             # 20 bits of points beside the tie-break
    top = board.codec.max_points
    with pytest.raises(PointsOutOfRange, match="do not fit"):
        board.submit("ann", top + 1)                 # refused by the codec, before any command
    board.submit("ann", top)
    before = board.top(5)
    with pytest.raises(PointsOutOfRange, match="do not fit"):
        board.submit("ann", 1)                       # refused by the script: top + 1
    assert board.top(5) == before


def test_a_frozen_season_refuses_writes_from_a_process_still_on_it(client):
    old = Leaderboard(client, "season", season="s1")
    old.submit("ann", 3)
    Leaderboard(client, "season", season="s1").rollover("s2")
    before = _keys(client)
    with pytest.raises(SeasonFrozen, match="'season'"):
        old.submit("bob", 1)
    assert _keys(client) == before and old.score("bob") is None


@pytest.mark.parametrize("sharded", [False, True], ids=["board", "sharded"])
def test_a_write_older_than_the_retention_window_is_refused(client, sharded):
    now = datetime.now(timezone.utc)
    board = (ShardedLeaderboard(client, "daily", shards=2, period="day", retain=1) if sharded
             else Leaderboard(client, "daily", period="day", retain=1))
    with pytest.raises(PeriodClosed, match="retain=1"):
        board.submit("ann", 5, at=now - timedelta(days=5))
    with pytest.raises(PeriodClosed):
        board.submit("ann", 5, at=now - timedelta(days=5), with_rank=True)
    assert _keys(client) == [b"{lb:daily}:board"]  # the board's descriptor only
    assert board.submit("ann", 5, at=now - timedelta(days=1)) == 5   # inside the window: kept
    assert _keys(client) != []


def test_rollover_refuses_the_current_season_and_a_frozen_one(client):
    board = Leaderboard(client, "cup", season="s1")
    board.submit("ann", 1)
    with pytest.raises(ValueError, match="already"):
        board.rollover("s1")                            # would freeze the board for good
    assert board.submit("ann", 1) == 2                  # still writable
    board.rollover("s2")
    with pytest.raises(SeasonFrozen, match="'s1'"):
        board.rollover("s1")                            # played and frozen before
    assert board.season == "s2" and board.submit("bob", 3) == 3


def test_a_sharded_periodic_submit_with_rank_reads_the_season_it_wrote(client):
    now = datetime.now(timezone.utc)
    board = ShardedLeaderboard(client, "days", shards=2, period="day", retain=3)
    yesterday = now - timedelta(days=1)
    assert board.submit("ann", 5, at=yesterday, with_rank=True) == fastrank.Change(5, 1, None, [])
    assert board.submit("bob", 7, at=yesterday, with_rank=True).rank == 1
    change = board.submit("ann", 9, at=yesterday, with_rank=True)
    assert change == fastrank.Change(14, 1, 2, ["bob"])


def test_season_at_names_the_period_a_write_goes_to(client):
    daily = Leaderboard(client, "days", period="day", retain=3)
    moment = datetime.now(timezone.utc) - timedelta(days=1)
    assert daily.season_at(moment) == moment.strftime("%Y-%m-%d")
    with pytest.raises(PeriodClosed):
        daily.season_at(moment - timedelta(days=10))
    assert Leaderboard(client, "plain", season="s1").season_at(moment) is None


def test_sharded_submit_many_checks_every_total_before_it_writes(client):
    board = ShardedLeaderboard(client, "many", shards=4)
    board.submit("p3", board.codec.max_points - 1)
    before = _keys(client), board.top(20)
    results = {f"p{i}": 1 for i in range(12)}
    results["p3"] = 5                                   # this total would not fit
    with pytest.raises(PointsOutOfRange):
        board.submit_many(results)
    assert (_keys(client), board.top(20)) == before     # nothing written
    with pytest.raises((TypeError, ValueError)):
        board.submit_many({"ok": 1, "": 2})             # a bad player id: nothing written either
    assert (_keys(client), board.top(20)) == before


def test_sharded_submit_many_names_the_players_applied_before_a_refusal(client):
    board = ShardedLeaderboard(client, "part", shards=4)
    players = [f"p{i}" for i in range(12)]
    last_shard = board.shard_of(players[-1])
    frozen = board.boards[last_shard]
    client.hset(frozen.keys()[3], "frozen", "1")       # one shard refuses writes
    with pytest.raises(SeasonFrozen) as refused:
        board.submit_many({p: 1 for p in players})
    order = list(dict.fromkeys(board.shard_of(p) for p in players))   # the shards in the order written
    written = [p for p in players if order.index(board.shard_of(p)) < order.index(last_shard)]
    assert written and sorted(refused.value.applied) == sorted(written)
    assert all(board.score(p) == 1 for p in written)
    assert all(board.score(p) is None for p in players if p not in written)
    assert "applied before it" in str(refused.value)


@pytest.mark.parametrize("sharded", [False, True], ids=["board", "sharded"])
def test_past_season_reads_take_season(client, sharded):
    board = (ShardedLeaderboard(client, "past", shards=3, season="s1", ranking="competition") if sharded
             else Leaderboard(client, "past", season="s1", ranking="competition"))
    board.submit_many({"ann": 30, "bob": 20, "cy": 10, "dee": 10})
    s1 = (board.percentile("bob"), board.bucket("bob"), board.rank_for(25), board.rank_for(10))
    board.rollover("s2")
    board.submit("bob", 1)
    assert (board.percentile("bob", season="s1"), board.bucket("bob", season="s1"),
            board.rank_for(25, season="s1"), board.rank_for(10, season="s1")) == s1
    assert s1[0] == 50.0 and s1[2:] == (2, 3)
    assert board.percentile("bob") == 0.0 and board.rank_for(25) == 1
