"""ShardedCounter and the server-kept CRDT replicas, on the Engine, Redis and the Cluster."""
from __future__ import annotations

import asyncio
import threading
from datetime import timedelta

import pytest
from redis.cluster import key_slot

import fastrank.asyncio
from fastrank import GCounter, GCounterReplica, PNCounter, PNCounterReplica, ShardedCounter


def test_sharded_counter_counts_exactly(client):
    likes = ShardedCounter(client, "likes:post:7", shards=8)
    for n in range(1, 51):
        likes.incr(n)
    likes.decr(75)
    assert likes.value() == sum(range(1, 51)) - 75
    # every shard key holds part of it, and nothing else was written but the stored shard count
    assert set(client.keys("*likes:post:7*")) <= {k.encode() for k in likes.shard_keys} | {
        likes.descriptor_key.encode()}


def test_incr_and_decr_answer_the_new_value_of_the_shard_they_picked(client):
    single = ShardedCounter(client, "one", shards=1)
    assert [single.incr(2), single.incr(3), single.decr(1)] == [2, 5, 4]
    spread = ShardedCounter(client, "spread", shards=4)
    for n in range(1, 30):
        got = spread.incr(n)
        shards = [int(client.get(k) or 0) for k in spread.shard_keys]
        assert got in shards and 1 <= got <= spread.value()


def test_sharded_counter_rollup_caches_the_total(client):
    views = ShardedCounter(client, "views", shards=3)
    assert views.cached_value() is None
    assert views.value() == 0
    views.incr(4)
    assert views.rollup(ttl=60) == 4
    views.incr(1)
    assert views.cached_value() == 4 and views.value() == 5
    assert 0 < client.pttl(views.total_key) <= 60_000
    assert views.rollup(ttl=timedelta(seconds=2)) == 5
    assert 0 < client.pttl(views.total_key) <= 2_000


def test_shard_keys_spread_over_slots_and_nodes(client, request):
    counter = ShardedCounter(client, "hot", shards=8)
    slots = {key_slot(k.encode()) for k in counter.shard_keys}
    assert len(slots) == 8
    assert key_slot(counter.total_key.encode()) == key_slot(b"hot")
    if request.node.callspec.params["client"] == "cluster":
        nodes = {client.get_node_from_key(k).name for k in counter.shard_keys}
        assert len(nodes) == 3


def test_concurrent_increments_lose_nothing(client):
    counter = ShardedCounter(client, "race", shards=4)

    def worker():
        for _ in range(200):
            counter.incr()
    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert counter.value() == 800


@pytest.mark.parametrize("args, error", [
    (dict(key="k", shards=0), ValueError), (dict(key="k", shards=1.5), ValueError),
    (dict(key="a{b}", shards=2), ValueError), (dict(key="", shards=2), ValueError),
    (dict(key=b"k", shards=2), TypeError), (dict(key=7, shards=2), TypeError),
])
def test_sharded_counter_bad_construction(client, args, error):
    with pytest.raises(error):
        ShardedCounter(client, **args)


@pytest.mark.parametrize("n, error", [(0, ValueError), (-3, ValueError), (1.0, TypeError),
                                      (True, TypeError), ("1", TypeError)])
def test_sharded_counter_bad_amounts_write_nothing(client, n, error):
    counter = ShardedCounter(client, "c", shards=2)
    with pytest.raises(error):
        counter.incr(n)
    with pytest.raises(error):
        counter.decr(n)
    with pytest.raises(ValueError):
        counter.rollup(ttl=0)
    keys = (client.keys("*", target_nodes=client.ALL_NODES) if hasattr(client, "ALL_NODES") else client.keys("*"))
    assert keys == [counter.descriptor_key.encode()]  # the stored shard count only


def test_shards_for():
    assert ShardedCounter.shards_for(500_000, 80_000) == 14
    assert ShardedCounter.shards_for(10, 1000) == 2
    assert ShardedCounter.shards_for(10, 1000, headroom=1.0) == 1
    assert ShardedCounter.shards_for(100_000, 100_000, headroom=1.5) == 2
    for bad in [(0, 1), (1, 0), (1, 1, 0), (float("inf"), 1), (float("nan"), 1), ("1", 1), (True, 1)]:
        with pytest.raises(ValueError):
            ShardedCounter.shards_for(*bad)


def test_gcounter_replica_merges_by_maximum_atomically(client):
    eu = GCounterReplica(client, "visits", "eu")
    eu.increment(5)
    us = GCounter("us")
    us.increment(2)
    assert eu.merge(us) == 1
    assert eu.merge(us) == 0                       # idempotent
    stale = GCounter.from_counts("asia", {"eu": 1, "us": 1})
    assert eu.merge(stale) == 0                    # smaller entries change nothing
    assert eu.value() == 7
    state = eu.state()
    assert state == GCounter.from_counts("eu", {"eu": 5, "us": 2})
    # the server's state merged into a local replica gives the same total
    us.merge(state)
    assert us.value() == 7


def test_pn_counter_replica(client):
    stored = PNCounterReplica(client, "balance", "a")
    stored.increment(10)
    stored.decrement(3)
    other = PNCounter("b")
    other.increment(4)
    other.decrement(6)
    assert stored.merge(other) == 2
    assert stored.value() == 10 - 3 + 4 - 6
    assert stored.state().counts == ({"a": 10, "b": 4}, {"a": 3, "b": 6})


def test_replicas_converge_whatever_the_order(client):
    import random

    rnd = random.Random(5)
    locals_ = [GCounter(f"n{i}") for i in range(5)]
    for c in locals_:
        c.increment(rnd.randint(1, 100))
    stored = GCounterReplica(client, "conv", "server")
    order = locals_ * 2
    rnd.shuffle(order)
    for c in order:
        stored.merge(c)
    assert stored.value() == sum(c.value() for c in locals_)


def test_huge_counts_compare_exactly(client):
    stored = GCounterReplica(client, "big", "x")
    near = GCounter.from_counts("y", {"y": 2**62 + 1})
    stored.merge(near)
    stored.merge(GCounter.from_counts("y", {"y": 2**62}))   # differs below a double's precision
    assert stored.state().counts == {"y": 2**62 + 1}
    with pytest.raises(ValueError, match="2\\*\\*63"):
        stored.merge(GCounter.from_counts("y", {"y": 2**63}))
    assert stored.state().counts == {"y": 2**62 + 1}


def test_replica_bad_input_writes_nothing(client):
    with pytest.raises(TypeError):
        GCounterReplica(client, "k", 5)
    with pytest.raises(TypeError):
        PNCounterReplica(client, b"k", "a")
    stored = GCounterReplica(client, "k", "a")
    with pytest.raises(TypeError):
        stored.merge(PNCounter("a"))
    with pytest.raises(ValueError):
        stored.increment(0)
    pn = PNCounterReplica(client, "p", "a")
    with pytest.raises(TypeError):
        pn.merge(GCounter("a"))
    with pytest.raises(ValueError):
        pn.decrement(-1)
    assert client.keys("*") == []


def test_asyncio_counters(async_client):
    async def main():
        client = await async_client().initialize()
        # (redis.asyncio's cluster client, given concurrent commands before it
        # has discovered the cluster, sends some of them twice: initialise first.)
        counter = fastrank.asyncio.ShardedCounter(client, "async", shards=4)
        await asyncio.gather(*(counter.incr(2) for _ in range(50)))
        total = await counter.value()
        cached = await counter.rollup(ttl=30)
        stored = fastrank.asyncio.PNCounterReplica(client, "apn", "a")
        await stored.increment(3)
        other = PNCounter("b")
        other.decrement(1)
        await stored.merge(other)
        g = fastrank.asyncio.GCounterReplica(client, "ag", "a")
        await g.increment(9)
        result = (total, cached, await counter.cached_value(), await stored.value(),
                  (await g.state()).counts)
        await client.aclose()
        return result

    assert asyncio.run(main()) == (100, 100, 100, 2, {"a": 9})


def test_docstring_examples():
    import doctest

    import fastrank.counters.counters

    result = doctest.testmod(fastrank.counters.counters)
    assert result.failed == 0 and result.attempted >= 10
