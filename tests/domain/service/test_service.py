"""ScoreService on the Engine, Redis and the Cluster, with a SQLite file (and PostgreSQL)
as the record of truth: record first, apply exactly once, rebuild, tombstones."""
from __future__ import annotations

import asyncio

import pytest

import fastrank.asyncio
from fastrank import Leaderboard, PostgresStore, SQLiteStore, ScoreService
from fastrank.service import CeilingExceeded, ConflictingResubmit, RanksUpdating, Receipt

T0 = 1_790_000_000  # whole seconds: the board's tie-break keeps seconds


@pytest.fixture
def store(tmp_path):
    s = SQLiteStore(tmp_path / "scores.db")
    yield s
    s.close()


def make(client, store, **kwargs):
    board = Leaderboard(client, "arena", season="s1", ranking=kwargs.pop("ranking", "ordinal"))
    return board, ScoreService(board, store, **kwargs)


def board_state(board):
    return {e.player: e.points for e in board.iter()}


def store_state(service):
    return {t.player: t.points for page in service.store.totals("s1", board="arena") for t in page}


def assert_in_step(board, service):
    assert board_state(board) == store_state(service)
    for t in (t for page in service.store.totals("s1", board="arena") for t in page):
        # the tie-break time on the board is when the player reached the total
        score = board._client.zscore(board.keys()[0], t.player)
        assert board.codec.tick(score) == int(t.at), t


def test_submit_records_then_applies(client, store):
    board, service = make(client, store)
    r1 = service.submit("m1", "ann", 30, at=T0)
    assert r1 == Receipt(r1.event_id, "m1", "ann", 30, float(T0))
    service.submit_match("m2", {"ann": 5, "cy": 1}, at=T0 + 10)
    service.submit("m3", "bob", 35, at=T0 + 20)
    assert [(e.player, e.points) for e in board.top()] == [("ann", 35), ("bob", 35), ("cy", 1)]  # ann was first
    assert service.rank("bob") == 2 and service.rank("nobody") is None
    assert_in_step(board, service)


def test_a_retry_adds_nothing_and_a_conflict_keeps_the_original(client, store):
    board, service = make(client, store)
    first = service.submit("m1", "ann", 30, at=T0)
    assert service.submit("m1", "ann", 30, at=T0 + 99) == first
    with pytest.raises(ConflictingResubmit):
        service.submit("m1", "ann", 31, at=T0)
    assert board.score("ann") == 30
    assert [e.points for e in service.history("ann")] == [30]
    assert_in_step(board, service)


@pytest.mark.parametrize("call, error", [
    (lambda s: s.submit("m", "ann", 101), CeilingExceeded),
    (lambda s: s.submit_match("m", {"ann": 10, "bob": 101}), CeilingExceeded),
    (lambda s: s.submit("m", "ann", -1), ValueError),
    (lambda s: s.submit("m", "ann", 1.0), TypeError),
    (lambda s: s.submit("m", "ann", True), TypeError),
    (lambda s: s.submit("m", b"ann", 1), TypeError),
    (lambda s: s.submit("m", None, 1), TypeError),
    (lambda s: s.submit("m", "", 1), ValueError),
    (lambda s: s.submit(7, "ann", 1), TypeError),
    (lambda s: s.submit("", "ann", 1), TypeError),
    (lambda s: s.submit_match("m", {}), ValueError),
    (lambda s: s.submit_match("m", {"1": 1, 1: 2}), ValueError),
    (lambda s: s.submit("m", "ann", 1, at=float("nan")), ValueError),
    (lambda s: s.submit("m", "ann", 1, at="yesterday"), TypeError),
    (lambda s: s.submit("m", "ann", 1, at=2.0 ** 40), ValueError),
])
def test_bad_input_is_refused_and_nothing_is_stored(client, store, call, error):
    board, service = make(client, store, max_points_per_match=100)
    service.submit("m0", "ann", 7, at=T0)
    before = (client.zrange(board.keys()[0], 0, -1, withscores=True), store.last_event_id())
    with pytest.raises(error):
        call(service)
    assert (client.zrange(board.keys()[0], 0, -1, withscores=True), store.last_event_id()) == before


def test_daily_ceiling_and_board_range(client, store):
    now = [T0 + 60.0]
    board, service = make(client, store, max_points_per_day=50, clock=lambda: now[0])
    service.submit("m1", "ann", 30, at=T0)
    with pytest.raises(CeilingExceeded):
        service.submit("m2", "ann", 21, at=T0 + 60)
    now[0] += 86_400                                 # the next day by the service's clock
    service.submit("m3", "ann", 21, at=T0 + 86_400)
    assert board.score("ann") == 51
    # a total the board cannot hold (2**20 - 1 with the default point_bits) is refused up front
    _, big = make(client, SQLiteStore(store.path + ".2"), allow_negative=True)
    big.submit("x1", "bob", 2 ** 20 - 1, at=T0)
    with pytest.raises(CeilingExceeded, match="board"):
        big.submit("x2", "bob", 1, at=T0)


def test_exactly_once_across_a_crash_between_commit_and_apply(client, store):
    board, writer = make(client, store, apply=False)
    writer.submit("m1", "ann", 10, at=T0)          # committed, not applied: a crash here
    writer.submit_match("m2", {"ann": 5, "bob": 3}, at=T0 + 1)
    assert board.count() == 0
    _, restarted = make(client, store)
    assert restarted.recover() == 3
    assert restarted.recover() == 0 and restarted.apply_pending() == 0
    assert board_state(board) == {"ann": 15, "bob": 3}
    assert_in_step(board, restarted)


def test_tombstones_rewrite_the_board(client, store):
    board, service = make(client, store, ranking="dense")
    service.submit_match("m1", {"ann": 10, "bob": 10}, at=T0)
    service.submit_match("m2", {"ann": 5, "cy": 1}, at=T0 + 5)
    assert service.tombstone_match("m2") == {"ann": 10, "cy": 0}
    assert board_state(board) == {"ann": 10, "bob": 10, "cy": 0}
    assert board.rank("bob", ranking="dense") == 1 and board.rank("cy", ranking="dense") == 2
    assert service.tombstone("bob") == 0 and service.tombstone("bob") is None
    assert board_state(board) == {"ann": 10, "bob": 0, "cy": 0}
    assert [(e.kind, e.points, e.tombstoned) for e in service.history("ann")] == [
        ("score", 10, False), ("score", 5, True), ("correction", 10, False)]
    assert_in_step(board, service)


def test_rebuild_restores_the_board_and_catches_up(client, store):
    board, service = make(client, store, ranking="dense")
    for i in range(120):
        service.submit_match(f"m{i}", {f"p{i % 17}": i % 9 + 1, f"q{i % 5}": 2}, at=T0 + i)
    expected = board_state(board)
    before = [board.rank(p, ranking=style) for p in expected for style in ("ordinal", "competition", "dense")]
    client.delete(*board.keys())                      # the board is lost
    _, late_writer = make(client, store, apply=False, ranking="dense")  # the board as it was made
    seen = []

    def progress(done, total):
        seen.append((done, total))
        if len(seen) == 1:                          # scores keep arriving during the rebuild
            late_writer.submit("late", "p1", 4, at=T0 + 500)
            assert service.rebuilding()
            assert [e.player for e in service.top(3)] == [e.player for e in sorted(
                (e for e in service.top(3)), key=lambda e: e.rank)]
            with pytest.raises(RanksUpdating):
                service.rank("p1")
            assert service.apply_pending() == 0   # appliers wait for the rebuild

    assert service.rebuild(progress=progress, batch=7) == len(expected)
    assert seen[-1][0] == len(expected) and len(seen) == -(-len(expected) // 7)
    assert not service.rebuilding()
    expected["p1"] += 4
    assert board_state(board) == expected
    assert_in_step(board, service)
    after = [board.rank(p, ranking=style) for p in expected for style in ("ordinal", "competition", "dense")]
    assert len(after) == len(before)
    # the dense companion was rebuilt too: dense ranks match a fresh computation
    values = sorted(set(expected.values()), reverse=True)
    assert all(board.rank(p, ranking="dense") == values.index(v) + 1 for p, v in expected.items())


def test_top_from_the_store_orders_as_the_board(client, store):
    board, service = make(client, store)
    service.submit_match("m1", {"a": 5, "b": 7, "c": 5, "d": 1}, at=T0)
    service.submit("m2", "e", 5, at=T0 - 1)                # e reached 5 before a and c
    from_board = service.top(5)
    assert [e.player for e in from_board] == ["b", "e", "c", "a", "d"]  # a and c tie: member order
    client.set(service.rebuild_key, 1)
    assert service.top(5) == from_board
    client.delete(service.rebuild_key)


def test_archive_writes_the_final_standings(client, store):
    board, service = make(client, store, ranking="competition")
    service.submit_match("m1", {"a": 5, "b": 7, "c": 5}, at=T0)
    assert service.archive(batch=2) == 3
    assert [(s.rank, s.player, s.points) for s in store.standings("s1", board="arena")] == [
        (1, "b", 7), (2, "c", 5), (2, "a", 5)]


def test_postgres_store_behind_the_service(client, postgres_dsn):
    store = PostgresStore(postgres_dsn)
    board, service = make(client, store, max_points_per_day=100)
    service.submit_match("m1", {"ann": 10, "bob": 20}, at=T0)
    service.submit("m2", "ann", 15, at=T0 + 1)
    assert service.submit("m2", "ann", 15) == service.submit("m2", "ann", 15)
    client.delete(*board.keys())
    service.rebuild()
    assert board_state(board) == {"ann": 25, "bob": 20}
    assert_in_step(board, service)
    store.close()


def test_asyncio_service(async_client, store):
    async def main():
        client = await async_client().initialize()
        board = fastrank.asyncio.Leaderboard(client, "arena", season="s1")
        service = fastrank.asyncio.ScoreService(board, store)
        await service.submit_match("m1", {"ann": 3, "bob": 4}, at=T0)
        await service.submit("m2", "ann", 2, at=T0 + 1)
        await client.delete(*board.keys())
        rebuilt = await service.rebuild()
        result = (rebuilt, [(e.player, e.points) for e in await service.top()], await service.rank("ann"),
                  [e.points for e in await service.history("ann")])
        await client.aclose()
        return result

    assert asyncio.run(main()) == (2, [("ann", 5), ("bob", 4)], 1, [3, 2])


def test_submit_matches_records_in_one_transaction(client, store):
    board, service = make(client, store, max_points_per_match=50)
    batch = [("m1", {"ann": 10, "bob": 5}, T0), ("m2", {"ann": 3}, T0 + 1), ("m3", {"cy": 7}, T0 + 2)]
    first = service.submit_matches(batch)
    assert [[(r.match_id, r.player, r.points) for r in match] for match in first] == [
        [("m1", "ann", 10), ("m1", "bob", 5)], [("m2", "ann", 3)], [("m3", "cy", 7)]]
    assert service.submit_matches(batch) == first                  # a retried batch adds nothing
    last = store.last_event_id()
    with pytest.raises(ConflictingResubmit):                        # one bad match: none recorded
        service.submit_matches([("m4", {"dan": 1}, T0 + 3), ("m1", {"ann": 11}, T0)])
    with pytest.raises(CeilingExceeded):
        service.submit_matches([("m5", {"dan": 1}, T0 + 3), ("m6", {"eve": 51}, T0)])
    assert store.last_event_id() == last
    assert board_state(board) == {"ann": 13, "bob": 5, "cy": 7}
    assert_in_step(board, service)


def test_duplicate_and_out_of_order_retries_leave_totals_unchanged(client, store):
    import random

    board, service = make(client, store)
    matches = [(f"m{i}", {f"p{i % 5}": i % 9 + 1, f"q{i % 3}": 2}, T0 + i) for i in range(40)]
    for match_id, points, at in matches:
        service.submit_match(match_id, points, at=at)
    expected = board_state(board)
    retries = matches * 3
    random.Random(4).shuffle(retries)
    for match_id, points, at in retries:                # late, repeated, in any order
        service.submit_match(match_id, points, at=at + 1000)
    assert board_state(board) == expected
    assert_in_step(board, service)


def test_a_result_dated_in_the_future_is_refused_before_it_is_recorded(client, store):
    import time

    board, service = make(client, store)
    before = store.last_event_id()
    with pytest.raises(ValueError, match="max_clock_skew"):
        service.submit("m1", "ann", 5, at=time.time() + 365 * 86_400)   # a year ahead
    assert store.last_event_id() == before and board.score("ann") is None
    service.submit("m2", "ann", 5, at=time.time() + 60)                  # inside the default skew
    _, lenient = make(client, SQLiteStore(store.path + ".3"), max_clock_skew=None)
    lenient.submit("m3", "bob", 1, at=time.time() + 365 * 86_400)
    with pytest.raises(ValueError, match="max_clock_skew must be"):
        make(client, store, max_clock_skew=-1)
