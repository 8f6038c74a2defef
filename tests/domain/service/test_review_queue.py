"""The review queue through the service, on the three backends with SQLite and
PostgreSQL: a held score is recorded and not counted until approved (exactly
once), a rejected one never counts, a flagged one counts and is listed; a
second service process judges with the history in the store; metrics and
log records follow every decision."""
from __future__ import annotations

import asyncio
import logging

import pytest

import fastrank.asyncio
from fastrank import Leaderboard, SQLiteStore, ScoreService
from fastrank.service.metrics import ServiceMetrics

T0 = 1_790_000_000


@pytest.fixture
def store(sql_store):
    return sql_store


def clock_from(start):
    now = [start]

    def clock():
        now[0] += 3600                              # an hour between calls: no burst
        return now[0]
    return clock


def warmed(client, store, review="hold", **kwargs):
    board = Leaderboard(client, "arena", season="s1")
    service = ScoreService(board, store, review=review, clock=clock_from(T0), max_clock_skew=None, **kwargs)
    for i in range(12):
        service.submit(f"w{i}", "ann", 50 + i % 5, at=T0 + i)
    return board, service


def points(board, player):
    return {e.player: e.points for e in board.iter()}.get(player)


def test_a_held_score_counts_once_approved(client, store):
    board, service = warmed(client, store)
    before = points(board, "ann")
    receipt = service.submit("big", "ann", 5000, at=T0 + 100)
    assert receipt.held and receipt.points == 5000
    assert points(board, "ann") == before
    assert service.store.total("s1", "ann", board="arena").points == before
    (flag,) = service.flags("held")
    assert (flag.event_id, flag.player, flag.points, flag.status) == (receipt.event_id, "ann", 5000, "held")
    assert "player's median" in flag.reasons[0]
    assert service.submit("big", "ann", 5000, at=T0 + 100) == receipt        # a retry: the same, still held
    decided = service.approve(receipt.event_id, by="mod:kim")
    assert (decided.status, decided.decided_by) == ("approved", "mod:kim")
    assert points(board, "ann") == before + 5000
    assert service.approve(receipt.event_id, by="mod:kim") is None           # exactly once
    assert service.reject(receipt.event_id) is None
    assert points(board, "ann") == before + 5000
    assert service.flags("held") == [] and [f.status for f in service.flags()] == ["approved"]
    board_now = {e.player: e.points for e in board.iter()}
    assert service.rebuild() == 1
    assert {e.player: e.points for e in board.iter()} == board_now


def test_a_rejected_held_score_never_counts(client, store):
    board, service = warmed(client, store)
    before = points(board, "ann")
    receipt = service.submit("big", "ann", 9000, at=T0 + 100)
    decided = service.reject(receipt.event_id, by="mod:kim")
    assert decided.status == "rejected"
    assert points(board, "ann") == before
    assert service.approve(receipt.event_id) is None
    kinds = [(e.kind, e.points, e.tombstoned) for e in service.history("ann")][-1]
    assert kinds == ("held", 9000, True)
    service.rebuild()
    assert points(board, "ann") == before


def test_flag_mode_counts_and_lists_and_reject_takes_it_back(client, store):
    board, service = warmed(client, store, review="flag")
    before = points(board, "ann")
    receipt = service.submit("big", "ann", 7000, at=T0 + 100)
    assert not receipt.held
    assert points(board, "ann") == before + 7000
    (flag,) = service.flags("flagged")
    assert flag.event_id == receipt.event_id
    service.reject(receipt.event_id, by="mod:kim")
    assert points(board, "ann") == before
    assert service.store.total("s1", "ann", board="arena").points == before


def test_a_second_process_judges_with_the_stored_history(client, store):
    board, service = warmed(client, store)
    again = ScoreService(Leaderboard(client, "arena"), store, review="hold", clock=clock_from(T0 + 10**5),
                         max_clock_skew=None)
    assert again.submit("big", "ann", 5000, at=T0 + 200).held
    assert not again.submit("fine", "ann", 55, at=T0 + 201).held
    assert not again.submit("new", "zed", 5000, at=T0 + 202).held           # no history yet: not judged


def test_user_checks_metrics_and_log_records(client, store, caplog):
    metrics = ServiceMetrics()

    def no_round_thousands(sub, history, population):
        return "a round thousand" if sub.points and sub.points % 1000 == 0 else None

    board = Leaderboard(client, "arena", season="s1")
    service = ScoreService(board, store, review="hold", checks=[no_round_thousands], metrics=metrics,
                           clock=clock_from(T0), max_clock_skew=None)
    with caplog.at_level(logging.INFO, logger="fastrank.service"):
        service.submit("m1", "ann", 999, at=T0)
        held = service.submit("m2", "ann", 2000, at=T0 + 1)
        with pytest.raises(ValueError):
            service.submit("m3", "ann", -5, at=T0 + 2)
        service.approve(held.event_id, by="mod:kim")
    assert [f.reasons for f in service.flags()] == [("a round thousand",)]
    assert points(board, "ann") == 2999
    label = {"board": "arena"}
    assert metrics.value("fastrank_submits_total", outcome="accepted", **label) == 1
    assert metrics.value("fastrank_submits_total", outcome="held", **label) == 1
    assert metrics.value("fastrank_submits_total", outcome="refused", **label) == 1
    assert metrics.value("fastrank_events_applied_total", **label) == 2      # the score, the approval's correction
    assert metrics.value("fastrank_apply_lag_events", **label) == 0
    assert metrics.value("fastrank_apply_seconds_count", **label) == 3          # every batch, empty ones too
    service.rebuild()
    assert metrics.value("fastrank_rebuild_progress_ratio", **label) == 1.0
    events = [r.event for r in caplog.records if hasattr(r, "event")]
    assert events == ["score.recorded", "score.applied", "score.held", "score.refused", "score.approved",
                      "score.applied"]


def test_bad_review_options_are_refused(client, store):
    board = Leaderboard(client, "arena", season="s1")
    with pytest.raises(ValueError, match="review must be 'hold', 'flag' or None"):
        ScoreService(board, store, review="maybe")
    with pytest.raises(TypeError, match="a check must be callable"):
        ScoreService(board, store, review="hold", checks=[42])
    with pytest.raises(ValueError, match="status must be one of"):
        ScoreService(board, store).flags("open")


def test_asyncio_approve(async_client, tmp_path):
    async def main():
        store = SQLiteStore(tmp_path / "a.db")
        board = fastrank.asyncio.Leaderboard(async_client(), "arena", season="s1")
        service = fastrank.asyncio.ScoreService(board, store, review="hold", clock=clock_from(T0),
                                                max_clock_skew=None)
        for i in range(12):
            await service.submit(f"w{i}", "ann", 50, at=T0 + i)
        held = await service.submit("big", "ann", 5000, at=T0 + 50)
        assert held.held
        assert (await service.approve(held.event_id, by="mod")).status == "approved"
        assert [(e.player, e.points) for e in await board.top(1)] == [("ann", 5600)]
        store.close()

    asyncio.run(main())

