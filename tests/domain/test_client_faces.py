"""A sync face given an asyncio client (and the reverse) is refused with a
clear TypeError when it is made, not with a confusing error at its first call."""
from __future__ import annotations

import pytest
import redis
import redis.asyncio

import fastrank
import fastrank.asyncio

SYNC_FACES = [
    lambda c: fastrank.Leaderboard(c, "b"),
    lambda c: fastrank.ShardedLeaderboard(c, "b", shards=2),
    lambda c: fastrank.ShardedCounter(c, "k"),
    lambda c: fastrank.GCounterReplica(c, "g", "n1"),
    lambda c: fastrank.PNCounterReplica(c, "p", "n1"),
    lambda c: fastrank.SegmentedLeaderboard(c, "s"),
]
ASYNC_FACES = [
    lambda c: fastrank.asyncio.Leaderboard(c, "b"),
    lambda c: fastrank.asyncio.ShardedLeaderboard(c, "b", shards=2),
    lambda c: fastrank.asyncio.ShardedCounter(c, "k"),
    lambda c: fastrank.asyncio.GCounterReplica(c, "g", "n1"),
    lambda c: fastrank.asyncio.PNCounterReplica(c, "p", "n1"),
    lambda c: fastrank.asyncio.SegmentedLeaderboard(c, "s"),
]
ASYNC_CLIENTS = [lambda: fastrank.asyncio.Engine(), lambda: redis.asyncio.Redis(port=1)]
SYNC_CLIENTS = [lambda: fastrank.Engine(), lambda: redis.Redis(port=1)]


@pytest.mark.parametrize("make", SYNC_FACES)
@pytest.mark.parametrize("client", ASYNC_CLIENTS)
def test_a_sync_face_refuses_an_asyncio_client(make, client):
    with pytest.raises(TypeError, match="needs a sync client .* use fastrank.asyncio"):
        make(client())


@pytest.mark.parametrize("make", ASYNC_FACES)
@pytest.mark.parametrize("client", SYNC_CLIENTS)
def test_an_asyncio_face_refuses_a_sync_client(make, client):
    with pytest.raises(TypeError, match="needs an asyncio client .* use fastrank\\."):
        make(client())


@pytest.mark.parametrize("make", SYNC_FACES)
def test_a_sync_face_takes_a_sync_client(make):
    assert make(fastrank.Engine()) is not None


def test_a_score_service_matches_its_board(tmp_path):
    store = fastrank.SQLiteStore(str(tmp_path / "s.db"))
    async_board = fastrank.asyncio.Leaderboard(fastrank.asyncio.Engine(), "b", season="s1")
    with pytest.raises(TypeError, match="needs a sync client"):
        fastrank.ScoreService(async_board, store)
    sync_board = fastrank.Leaderboard(fastrank.Engine(), "b", season="s1")
    with pytest.raises(TypeError, match="needs an asyncio client"):
        fastrank.asyncio.ScoreService(sync_board, store)
    assert fastrank.asyncio.ScoreService(async_board, store) is not None
