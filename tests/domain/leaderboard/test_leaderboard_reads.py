"""Reads on every backend: styles side by side, rank_for, percentile, bucket,
entry data with_info, friends, iter, the top-N cache, cluster slots."""
from __future__ import annotations

import pytest

from fastrank import Entry, Leaderboard

SCORES = [("ann", 50), ("bob", 40), ("cy", 40), ("dee", 30), ("eve", 30), ("fay", 30), ("gus", 10)]


def filled(client, name="reads", **options):
    board = Leaderboard(client, name, **options)
    for at, (player, points) in enumerate(SCORES):
        board.submit(player, points, at=at)
    return board


def test_styles(client):
    board = filled(client, ranking="dense")
    names = [p for p, _ in SCORES]
    assert [board.rank(p, ranking="ordinal") for p in names] == [1, 2, 3, 4, 5, 6, 7]
    assert [board.rank(p, ranking="competition") for p in names] == [1, 2, 2, 4, 4, 4, 7]
    assert [board.rank(p) for p in names] == [1, 2, 2, 3, 3, 3, 4]
    assert [e.rank for e in board.top(7, ranking="competition")] == [1, 2, 2, 4, 4, 4, 7]
    assert [e.rank for e in board.page(2, 3)] == [3, 3, 3]
    assert [e.rank for e in board.page(2, 3, ranking="competition")] == [4, 4, 4]
    assert [e.rank for e in board.page(3, 3, ranking="ordinal")] == [7]
    with pytest.raises(ValueError, match="dense"):
        filled(client, "plain").rank("ann", ranking="dense")


def test_count_score_rank_absent(client):
    board = filled(client)
    assert board.count() == 7
    assert board.score("nobody") is None and board.rank("nobody") is None
    assert board.around("nobody", 2) == [] and board.percentile("nobody") is None
    assert board.bucket("nobody") is None


def test_rank_for(client):
    board = filled(client, ranking="dense")
    assert board.rank_for(40, ranking="ordinal") == 4           # after the two already on 40
    assert board.rank_for(40, ranking="competition") == 2
    assert board.rank_for(40) == 2
    assert board.rank_for(35, ranking="competition") == 4 and board.rank_for(35) == 3
    assert board.rank_for(99) == 1 and board.rank_for(0) == 5
    latest = filled(client, "latest", tiebreak="latest")
    assert latest.rank_for(40) == 2                              # before the two on 40
    race = Leaderboard(client, "race", order="asc")
    race.submit("ann", 90, at=1)
    race.submit("bob", 95, at=1)
    assert race.rank_for(95) == 3 and race.rank_for(95, ranking="competition") == 2
    assert race.rank_for(80) == 1 and board.count() == 7      # nothing written


def test_around_clips_at_the_ends(client):
    board = filled(client)
    assert [e.player for e in board.around("dee", 2)] == ["bob", "cy", "dee", "eve", "fay"]
    assert [e.player for e in board.around("ann", 2)] == ["ann", "bob", "cy"]
    assert [e.player for e in board.around("gus", 1)] == ["fay", "gus"]
    assert board.around("dee", 0) == [Entry(4, "dee", 30)]


def test_percentile_and_bucket(client):
    board = Leaderboard(client, "pct", buckets=(1, 5, 10, 25, 50))
    for i in range(200):
        board.submit(f"p{i:03d}", 1000 - i, at=1)
    assert board.percentile("p000") == 100 * 199 / 200
    assert board.percentile("p199") == 0.0
    assert [board.bucket(f"p{i:03d}") for i in (0, 1, 2, 9, 10, 19, 20, 49, 99, 100, 199)] == [
        "top 1%", "top 1%", "top 5%", "top 5%", "top 10%", "top 10%", "top 25%", "top 25%",
        "top 50%", "bottom 50%", "bottom 50%"]
    custom = Leaderboard(client, "pct", buckets=(50,))
    assert custom.bucket("p000") == "top 50%"


def test_info_and_with_info(client):
    board = filled(client)
    board.set_info("bob", {"name": "Bob", "country": "FR"})
    board.set_info("dee", {"name": "Dee"})
    assert board.info("bob") == {"country": "FR", "name": "Bob"}
    assert board.info("ann") is None
    top = board.top(3, with_info=True)
    assert [(e.player, e.info) for e in top] == [("ann", None), ("bob", {"country": "FR", "name": "Bob"}),
                                                 ("cy", None)]
    assert [e.info for e in board.page(2, 2, with_info=True)] == [None, {"name": "Dee"}]
    assert [e.info for e in board.around("dee", 0, with_info=True)] == [{"name": "Dee"}]
    assert [e.info for e in board.friends("gus", ["dee"], with_info=True)] == [{"name": "Dee"}, None]
    board.set_info("bob", {"name": "Robert"})                          # replaces
    assert board.info("bob") == {"name": "Robert"}
    with pytest.raises(TypeError):
        board.set_info("bob", ["name"])


def test_friends(client):
    board = filled(client, ranking="competition")
    got = board.friends("fay", ["cy", "gus", "nobody", "fay", "eve"])
    assert got == [Entry(1, "cy", 40, 2), Entry(2, "eve", 30, 4), Entry(2, "fay", 30, 4), Entry(4, "gus", 10, 7)]
    assert board.friends("nobody", []) == []
    ordinal = board.friends("fay", ["eve", "cy"], ranking="ordinal")
    assert [(e.rank, e.player, e.global_rank) for e in ordinal] == [(1, "cy", 3), (2, "eve", 5), (3, "fay", 6)]


def test_iter_streams_everything(client):
    board = Leaderboard(client, "stream", ranking="dense")
    for i in range(25):
        board.submit(f"p{i:02d}", i // 3, at=i)
    rows = list(board.iter(batch=4))
    assert len(rows) == 25 and [e.player for e in rows] == [e.player for e in board.top(25)]
    assert [e.rank for e in rows] == [e.rank for e in board.top(25)]
    assert rows[-1].rank == 1 + len({i // 3 for i in range(25)}) - 1
    assert list(Leaderboard(client, "empty").iter()) == []


def test_top_cache(client):
    board = filled(client, cache_ttl=60)
    first = board.top(3)
    client.zrem(board.keys()[0], "ann")                     # a write by another process
    assert board.top(3) == first                            # served from the cache
    board.submit("gus", 90, at=100)                         # our own write invalidates it
    assert [e.player for e in board.top(3)] == ["gus", "bob", "cy"]
    assert [e.player for e in Leaderboard(client, "reads").top(1)] == ["gus"]
    twin = Leaderboard(client, "reads", cache_ttl=60)                # same process, same client
    cached = twin.top(2)
    Leaderboard(client, "reads").submit("bob", 1000, at=101)          # a write through any board here
    assert twin.top(2) != cached and twin.top(1)[0].player == "bob"
    assert board.top(1, ranking="competition")[0].player == "bob"


def test_keys_share_one_slot(client):
    from redis.cluster import key_slot

    board = filled(client, "slots", season="s1", ranking="dense")
    board.set_info("ann", {"x": 1})
    keys = board.keys()
    assert len({key_slot(k.encode()) for k in keys}) == 1
    assert all(client.exists(k) for k in keys if not k.endswith(":meta"))


def test_decoded_responses(client):
    import redis

    from fastrank import Engine

    if isinstance(client, Engine):
        decoded = Engine(decode_responses=True)
    elif isinstance(client, redis.Redis):
        kwargs = client.connection_pool.connection_kwargs
        decoded = redis.Redis(host=kwargs["host"], port=kwargs["port"], decode_responses=True)
    else:
        node = client.get_default_node()
        decoded = redis.cluster.RedisCluster(host=node.host, port=node.port, decode_responses=True)
    board = filled(decoded, "decoded", ranking="dense")
    board.set_info("ann", {"n": 1})
    assert board.top(2, with_info=True) == [Entry(1, "ann", 50, None, {"n": 1}), Entry(2, "bob", 40)]
    assert board.friends("bob", ["cy"])[0] == Entry(1, "bob", 40, 2)
    assert board.submit("gus", 35, at=9, with_rank=True, rule="set").passed == ["dee", "eve", "fay"]


def test_long_friend_lists_and_pages(client):
    board = Leaderboard(client, "crowd", ranking="competition")
    board.submit_many({f"p{i}": i % 100 for i in range(9_000)}, at=1)
    board.set_info("p99", {"best": True})
    ids = [f"p{i}" for i in range(1, 9_000)] + [f"ghost{i}" for i in range(500)]
    got = board.friends("p0", ids, with_info=True)
    assert len(got) == 9_000 and got[0].points == 99 and got[-1].points == 0
    assert [e.global_rank for e in got] == [e.rank for e in got]     # everyone's a friend
    assert sum(e.info is not None for e in got) == 1
    page = board.page(1, 9_000, with_info=True)
    assert [(e.rank, e.player) for e in page] == [(e.rank, e.player) for e in board.iter(batch=2_000)]
