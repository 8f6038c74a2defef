"""A service whose season was rolled over refuses new submits before it records
them, and the applier never stops on an event it cannot apply: it marks the
event rejected with its reason (``rejected()``) and moves on; ``archive()``
writes the service's own season after a rollover; the day ceiling counts the
time the service records, not the caller's ``at`` (#24). On the Engine,
Redis and the Cluster, with a SQLite file and PostgreSQL."""
from __future__ import annotations

import asyncio

import pytest

import fastrank.asyncio
import fastrank.service
from fastrank import Leaderboard, SQLiteStore, ScoreService, SeasonFrozen

T0 = 1_790_000_000


@pytest.fixture
def store(sql_store):
    return sql_store


def test_a_rolled_over_season_refuses_submits_before_recording(client, store):
    board = Leaderboard(client, "arena", season="s1")
    service = ScoreService(board, store)
    service.submit("m1", "ann", 10, at=T0)
    board.rollover("s2")
    last = store.last_event_id()
    with pytest.raises(SeasonFrozen, match="s1"):
        service.submit("m2", "ann", 5, at=T0)
    with pytest.raises(SeasonFrozen):
        service.submit_matches([("m3", {"bob": 1}, T0)])
    assert store.last_event_id() == last and service.apply_pending() == 0 and service.rejected() == []
    # the new season's service works
    s2 = ScoreService(Leaderboard(client, "arena", season="s2"), store)
    s2.submit("m2", "ann", 5, at=T0)
    assert board.score("ann", season="s2") == 5 and board.score("ann", season="s1") == 10


def test_events_pending_when_the_season_froze_are_rejected_and_the_log_moves_on(client, store):
    board = Leaderboard(client, "arena", season="s1")
    writer = ScoreService(board, store, apply=False)
    applier = ScoreService(Leaderboard(client, "arena", season="s1"), store)
    writer.submit("m1", "ann", 10, at=T0)
    assert applier.apply_pending() == 1
    writer.submit("m2", "ann", 5, at=T0)
    writer.submit("m3", "bob", 7, at=T0)
    board.rollover("s2")
    assert applier.apply_pending() == 0           # no exception, not stuck
    rejected = applier.rejected()
    assert [(e.match_id, e.player, e.points) for e in rejected] == [("m2", "ann", 5), ("m3", "bob", 7)]
    assert all("frozen" in e.rejected for e in rejected)
    assert int(client.get(applier.offset_key)) == rejected[-1].id
    assert applier.apply_pending() == 0 and len(applier.rejected()) == 2
    # they count for nothing in the store: its totals match the frozen board
    assert store.total("s1", "ann", board="arena").points == 10
    assert store.total("s1", "bob", board="arena") is None
    assert board.score("ann", season="s1") == 10 and board.score("bob", season="s1") is None


def test_an_event_that_does_not_fit_the_board_is_rejected_alone(client, store):
    board = Leaderboard(client, "arena", season="s1", point_bits=10)
    service = ScoreService(board, store)
    service.submit("m1", "ann", 10, at=T0)
    store.record("s1", "huge", {"bob": 5000}, T0, board="arena")        # bypasses the service's checks
    store.record("s1", "m2", {"cy": 3}, T0, board="arena")
    assert service.apply_pending() == 1
    assert [(e.match_id, e.player) for e in service.rejected()] == [("huge", "bob")]
    assert "do not fit" in service.rejected()[0].rejected
    assert {e.player: e.points for e in board.iter()} == {"ann": 10, "cy": 3}
    board.client.delete(*board.keys())
    service.rebuild()                                                   # the store agrees with the board
    assert {e.player: e.points for e in board.iter()} == {"ann": 10, "cy": 3}


def test_the_asyncio_service_refuses_and_rejects_alike(async_client, tmp_path):
    store = SQLiteStore(tmp_path / "scores.db")

    async def main():
        client = await async_client().initialize()
        board = fastrank.asyncio.Leaderboard(client, "arena", season="s1")
        writer = fastrank.asyncio.ScoreService(board, store, apply=False)
        await writer.submit("m1", "ann", 10, at=T0)
        await board.rollover("s2")
        with pytest.raises(SeasonFrozen):
            await writer.submit("m2", "ann", 5, at=T0)
        assert await writer.apply_pending() == 0
        assert [e.match_id for e in await writer.rejected()] == ["m1"]
        await client.aclose()

    asyncio.run(main())
    store.close()


def test_archive_writes_the_season_of_the_service_after_a_rollover(client, store):
    board = Leaderboard(client, "arena", season="s1")
    s1 = ScoreService(board, store)
    s1.submit_match("m1", {"ann": 10, "bob": 7}, at=T0)
    board.rollover("s2")
    s2 = ScoreService(Leaderboard(client, "arena", season="s2"), store)
    s2.submit("m2", "cy", 99, at=T0)
    assert s1.archive() == 2 and s2.archive() == 1
    assert [(s.rank, s.player, s.points) for s in store.standings("s1", board="arena")] == [
        (1, "ann", 10), (2, "bob", 7)]
    assert [(s.player, s.points) for s in store.standings("s2", board="arena")] == [("cy", 99)]


def test_the_day_ceiling_counts_the_time_the_service_records(client, store):
    now = [float(T0)]
    board = Leaderboard(client, "arena", season="s1")
    service = ScoreService(board, store, max_points_per_day=50, clock=lambda: now[0])
    service.submit("m1", "ann", 30, at=T0)
    with pytest.raises(fastrank.service.CeilingExceeded):      # a claimed other day does not dodge it
        service.submit("m2", "ann", 21, at=T0 - 86_400)
    with pytest.raises(ValueError, match="max_clock_skew"):     # nor a claimed time ahead of the clock
        service.submit("m2", "ann", 21, at=T0 + 86_400)
    now[0] += 86_400
    receipt = service.submit("m2", "ann", 21, at=T0 - 86_400)
    assert receipt.at == T0 - 86_400 and board.score("ann") == 51
    assert [e.recorded_at for e in service.history("ann")] == [T0, T0 + 86_400]


def test_tombstones_in_a_rolled_over_season_are_refused_before_the_store_changes(client, store):
    board = Leaderboard(client, "arena", season="s1")
    service = ScoreService(board, store)
    service.submit("m1", "ann", 10, at=T0)
    board.rollover("s2")
    last = store.last_event_id()
    with pytest.raises(SeasonFrozen):
        service.tombstone("ann")
    with pytest.raises(SeasonFrozen):
        service.tombstone_match("m1")
    assert store.last_event_id() == last and store.total("s1", "ann", board="arena").points == 10
    assert [e.tombstoned for e in service.history("ann")] == [False]


def test_the_old_seasons_applier_passes_the_new_seasons_events(client, store):
    board = Leaderboard(client, "arena", season="s1")
    s1 = ScoreService(board, store, batch=2)
    s1.submit("m1", "ann", 10, at=T0)
    board.rollover("s2")
    s2 = ScoreService(Leaderboard(client, "arena", season="s2"), store)
    for i in range(5):                      # batches that hold no event of s1 at all
        s2.submit(f"n{i}", "bob", 1, at=T0)
    assert s1.apply_pending() == 0 and s1.rejected() == []
    assert int(client.get(s1.offset_key)) == store.last_event_id(board="arena")
    assert board.score("bob", season="s2") == 5 and board.score("bob", season="s1") is None


def test_reads_through_the_service_stay_in_its_season_after_a_rollover(client, store):
    board = Leaderboard(client, "arena", season="s1")
    s1 = ScoreService(board, store)
    s1.submit_match("m1", {"ann": 10, "bob": 7}, at=T0)
    board.rollover("s2")                          # the same board object moves to s2
    ScoreService(Leaderboard(client, "arena", season="s2"), store).submit("m2", "cy", 99, at=T0)
    assert [(e.player, e.points) for e in s1.top(5)] == [("ann", 10), ("bob", 7)]
    assert [e.player for e in s1.page(1, 5)] == ["ann", "bob"] and s1.rank("bob") == 2
    assert [e.player for e in s1.around("bob", 1)] == ["ann", "bob"]
    assert [e.player for e in s1.friends("ann", ["bob"])] == ["ann", "bob"]
    assert [e.player for e in board.top(5)] == ["cy"]
