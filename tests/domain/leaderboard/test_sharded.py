"""ShardedLeaderboard answers exactly as one Leaderboard fed the same events, on the
Engine, Redis and the Cluster; shard keys spread over slots; resharding keeps reads right."""
from __future__ import annotations

import asyncio
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from redis.cluster import key_slot

import fastrank.asyncio
from fastrank import Leaderboard, ShardedLeaderboard

T0 = 1_790_000_000
STYLES = ("ordinal", "competition", "dense")
_names = itertools.count()
PLAYERS = [f"p{i}" for i in range(12)] + ["é", "p1\x00"]  # (the empty id is refused: tests/unit/test_small_inputs.py)

events = st.lists(st.tuples(st.sampled_from(PLAYERS), st.integers(0, 30), st.integers(0, 4),
                            st.sampled_from(["incr", "best", "set"])), min_size=1, max_size=40)


def pair(client, shards=3, **options):
    name = f"b{next(_names)}"
    options.setdefault("ranking", "dense")
    return (Leaderboard(client, name, **options),
            ShardedLeaderboard(client, name + "s", shards=shards, **options))


def feed(boards, history):
    for player, points, second, rule in history:
        for b in boards:
            b.submit(player, points, at=T0 + second, rule=rule)


def assert_same(one, many, players):
    assert many.count() == one.count()
    assert list(many.iter(batch=2)) == list(one.iter())
    for style in STYLES:
        for n in (0, 1, 4, 50):
            assert many.top(n, ranking=style) == one.top(n, ranking=style), (style, n)
        for p in players + ["absent"]:
            assert many.rank(p, ranking=style) == one.rank(p, ranking=style), (style, p)
            assert many.around(p, 2, ranking=style) == one.around(p, 2, ranking=style), (style, p)
        assert many.page(2, 3, ranking=style) == one.page(2, 3, ranking=style)
        assert many.friends(players[0], players[1:6], ranking=style) == \
            one.friends(players[0], players[1:6], ranking=style)
        for points in (0, 7, 30, 61):
            assert many.rank_for(points, ranking=style) == one.rank_for(points, ranking=style)
    for p in players:
        assert many.score(p) == one.score(p)
        assert many.percentile(p) == one.percentile(p)
        assert many.bucket(p) == one.bucket(p)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=events, order=st.sampled_from(["desc", "asc"]),
       tiebreak=st.sampled_from(["earliest", "latest", None]))
def test_sharded_equals_unsharded(client, history, order, tiebreak):
    one, many = pair(client, order=order, tiebreak=tiebreak)
    feed([one, many], history)
    assert_same(one, many, sorted({p for p, *_ in history}))


def test_with_rank_reports_global_moves(client):
    one, many = pair(client, shards=4, ranking="ordinal")
    feed([one, many], [(f"p{i}", 10 * i, i, "incr") for i in range(10)])
    for b in (one, many):
        b.set_info("p1", {"name": "One"})
    assert many.submit("p1", 75, at=T0 + 99, with_rank=True) == one.submit("p1", 75, at=T0 + 99, with_rank=True)
    assert many.submit("new", 5, at=T0 + 99, with_rank=True) == one.submit("new", 5, at=T0 + 99, with_rank=True)
    assert many.top(3, with_info=True) == one.top(3, with_info=True)
    assert many.submit_many({"p2": 1, "p3": 2}, at=T0 + 100) == one.submit_many({"p2": 1, "p3": 2}, at=T0 + 100)
    assert many.remove("p4") and one.remove("p4")
    assert list(many.iter()) == list(one.iter())


def test_shard_keys_land_on_different_slots(client, request):
    board = ShardedLeaderboard(client, "spread", shards=8)
    for i in range(64):
        board.submit(f"player{i}", i, at=T0)
    keys = [b.keys()[0] for b in board.boards]
    assert len({key_slot(k.encode()) for k in keys}) == 8
    assert sum(board.boards[i]._client.zcard(k) for i, k in enumerate(keys)) == 64
    assert all(client.zcard(k) > 0 for k in keys)
    if request.node.callspec.params["client"] == "cluster":
        assert len({client.get_node_from_key(k).name for k in keys}) == 3


def test_reshard_keeps_reads_exact_during_the_move(client):
    one, many = pair(client, shards=3)
    feed([one, many], [(f"p{i}", (7 * i) % 23, i % 5, "incr") for i in range(60)])
    many.set_info("p3", {"name": "Three"})
    one.set_info("p3", {"name": "Three"})
    checks = []

    def during(moved, total):
        checks.append(moved)
        assert many.top(10) == one.top(10)
        assert many.rank("p7", ranking="dense") == one.rank("p7", ranking="dense")
        with pytest.raises(ValueError, match="frozen"):
            many.submit("p7", 1)

    assert many.reshard(5, batch=7, progress=during) == 60
    assert checks and checks[-1] == 60
    assert many.shards == 5
    assert_same(one, many, [f"p{i}" for i in range(60)])
    assert many.info("p3") == {"name": "Three"}
    many.submit("p7", 1, at=T0 + 50)
    one.submit("p7", 1, at=T0 + 50)
    assert many.rank("p7") == one.rank("p7")


@pytest.mark.parametrize("shards", [0, -1, 1.5, True, "2"])
def test_bad_shard_counts(client, shards):
    with pytest.raises(ValueError):
        ShardedLeaderboard(client, "bad", shards=shards)


def test_bad_input_writes_nothing(client):
    board = ShardedLeaderboard(client, "badin", shards=2)
    for call in (lambda: board.submit(None, 1), lambda: board.submit("a", 1.5), lambda: board.submit("a", 2 ** 20),
                 lambda: board.top(-1), lambda: board.around("a", -2), lambda: board.friends("a", "b")):
        with pytest.raises((TypeError, ValueError)):
            call()
    assert board.count() == 0
    with pytest.raises(ValueError):
        board.reshard(0)


def test_asyncio_sharded(async_client):
    async def main():
        client = await async_client().initialize()
        board = fastrank.asyncio.ShardedLeaderboard(client, "async", shards=3)
        for i in range(20):
            await board.submit(f"p{i}", i % 7, at=T0 + i)
        result = ([e.player for e in await board.top(3)], await board.rank("p6"), await board.count(),
                  [e.player async for e in board.iter(batch=4)][:3])
        await client.aclose()
        return result

    assert asyncio.run(main()) == (["p6", "p13", "p5"], 1, 20, ["p6", "p13", "p5"])
