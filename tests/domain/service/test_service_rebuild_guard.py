"""While a rebuild runs, the service's answers keep the board's ranking: ``top``
and ``page`` answer from the store with the board's own ranks (dense ones
included), and ``rank``, ``around`` and ``friends`` raise RanksUpdating (#24).
On the Engine, Redis and the Cluster."""
from __future__ import annotations

import pytest

from fastrank import Leaderboard, SQLiteStore, ScoreService
from fastrank.service import RanksUpdating

T0 = 1_790_000_000
POINTS = {"a": 5, "b": 7, "c": 5, "d": 1, "e": 7, "f": 3, "g": 5, "h": 1}


@pytest.fixture
def store(tmp_path):
    s = SQLiteStore(tmp_path / "scores.db")
    yield s
    s.close()


@pytest.mark.parametrize("ranking", ["ordinal", "competition", "dense"])
def test_top_and_page_keep_the_board_ranks_while_it_is_rebuilt(client, store, ranking):
    board = Leaderboard(client, "arena", season="s1", ranking=ranking)
    service = ScoreService(board, store)
    service.submit_match("m1", POINTS, at=T0)
    from_board = service.top(8), [service.page(k, 3) for k in (1, 2, 3)]
    client.set(service.rebuild_key, 1)
    try:
        assert (service.top(8), [service.page(k, 3) for k in (1, 2, 3)]) == from_board
    finally:
        client.delete(service.rebuild_key)
    if ranking == "dense":
        assert [e.rank for e in from_board[0]] == [1, 1, 2, 2, 2, 3, 4, 4]


def test_a_real_rebuild_of_a_dense_board_answers_dense_ranks(client, store):
    board = Leaderboard(client, "arena", season="s1", ranking="dense")
    service = ScoreService(board, store)
    service.submit_match("m1", POINTS, at=T0)
    expected = service.top(8)
    seen = []

    def progress(done, total):
        if not seen:
            seen.append(service.top(8))

    service.rebuild(progress=progress, batch=3)
    assert seen == [expected] and service.top(8) == expected


def test_rank_around_and_friends_raise_while_the_board_is_rebuilt(client, store):
    board = Leaderboard(client, "arena", season="s1")
    service = ScoreService(board, store)
    service.submit_match("m1", POINTS, at=T0)
    answers = service.rank("a"), service.around("a", 1), service.friends("a", ["b", "d"])
    assert answers == (board.rank("a"), board.around("a", 1), board.friends("a", ["b", "d"]))
    client.set(service.rebuild_key, 1)
    try:
        for call in (lambda: service.rank("a"), lambda: service.around("a", 1),
                     lambda: service.friends("a", ["b", "d"])):
            with pytest.raises(RanksUpdating):
                call()
    finally:
        client.delete(service.rebuild_key)
    assert (service.rank("a"), service.around("a", 1), service.friends("a", ["b", "d"])) == answers


def test_the_asyncio_service_guards_alike(async_client, store):
    import asyncio

    import fastrank.asyncio

    async def main():
        client = await async_client().initialize()
        board = fastrank.asyncio.Leaderboard(client, "arena", season="s1", ranking="dense")
        service = fastrank.asyncio.ScoreService(board, store)
        await service.submit_match("m1", POINTS, at=T0)
        expected = await service.page(2, 3)
        await client.set(service.rebuild_key, 1)
        assert await service.page(2, 3) == expected and [e.rank for e in expected] == [2, 2, 3]
        for call in (service.rank("a"), service.around("a", 1), service.friends("a", ["b"])):
            with pytest.raises(RanksUpdating):
                await call
        await client.delete(service.rebuild_key)
        assert [e.player for e in await service.friends("a", ["b"])] == ["b", "a"]
        await client.aclose()

    asyncio.run(main())
