"""A sharded counter stores its shard count (#24): a process given another
count, or none, reads the whole total; resize(n) moves the count for every
process. On the three backends."""
from __future__ import annotations

import asyncio

import pytest

import fastrank.asyncio
from fastrank import BoardConfigMismatch, ShardedCounter


def test_a_counter_opened_by_key_alone_reads_the_whole_total(client):
    made = ShardedCounter(client, "views", shards=16)
    for n in range(1, 41):
        made.incr(n)
    opened = ShardedCounter(client, "views")
    assert opened.shards == 16 and opened.value() == made.value() == sum(range(1, 41))


def test_another_count_raises_instead_of_a_partial_total(client):
    made = ShardedCounter(client, "views", shards=16)
    for n in range(1, 41):
        made.incr(n)
    with pytest.raises(BoardConfigMismatch, match="shards=16, not shards=4") as caught:
        ShardedCounter(client, "views", shards=4)
    assert (caught.value.option, caught.value.stored, caught.value.given) == ("shards", 16, 4)


def test_resize_moves_the_count_for_every_process_and_loses_nothing(client):
    counter = ShardedCounter(client, "likes", shards=4)
    stale = ShardedCounter(client, "likes")
    for _ in range(20):
        counter.incr(3)
    assert counter.resize(12) == 60 and counter.shards == 12
    for _ in range(30):
        counter.incr()
    assert stale.value() == 90 and stale.high == 12       # the stale process re-read the count
    assert counter.resize(2) == 90 and counter.shards == 2
    for _ in range(10):
        stale.incr()                                      # a process still on 12 shards: counted
        counter.incr()
    assert ShardedCounter(client, "likes").value() == 110
    assert ShardedCounter(client, "likes").shards == 2
    with pytest.raises(ValueError):
        counter.resize(0)


def test_asyncio_counter_opens_on_first_call(async_client):
    async def main():
        client = async_client()
        try:
            made = fastrank.asyncio.ShardedCounter(client, "hits", shards=5)
            await made.incr(7)
            opened = fastrank.asyncio.ShardedCounter(client, "hits")
            assert await opened.value() == 7 and opened.shards == 5
            with pytest.raises(BoardConfigMismatch):
                await fastrank.asyncio.ShardedCounter(client, "hits", shards=3).value()
            assert await opened.resize(9) == 7 and (await made.value(), made.high) == (7, 9)
        finally:
            await client.aclose()

    asyncio.run(main())
