"""fastrank.asyncio.Engine on its own: commands, pipelines, blocking pops, connect()."""
from __future__ import annotations

import asyncio
import threading
import time

import pytest
import redis
import redis.asyncio

import fastrank
import fastrank.asyncio as fa


def test_commands_share_the_sync_core() -> None:
    async def main() -> None:
        async with fa.Engine() as engine:
            assert await engine.zadd("z", {"a": 1, "b": 2}) == 2
            assert await engine.zrange("z", 0, -1, withscores=True) == [(b"a", 1.0), (b"b", 2.0)]
            assert await engine.incr("n") == 1
            assert engine.sync_engine.get("n") == b"1"
            with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
                await engine.incr("z")
            with pytest.raises(redis.DataError):
                await engine.zadd("z", {"a": 1}, nx=True, xx=True)
            assert sorted([k async for k in engine.scan_iter()]) == [b"n", b"z"]
        shared = fastrank.Engine(decode_responses=True)
        view = fa.Engine(engine=shared)
        await view.set("k", "v")
        assert shared.get("k") == "v" and await view.get("k") == "v"

    asyncio.run(main())


def test_pipeline_api() -> None:
    async def main() -> None:
        engine = fa.Engine()
        pipe = engine.pipeline()
        assert pipe.set("x", 1).incr("x") is pipe and len(pipe) == 2
        assert await pipe.execute() == [True, 2]
        async with engine.pipeline() as pipe:
            assert await pipe.watch("x") is True
            assert await pipe.get("x") == b"2"
            pipe.multi()
            pipe.incr("x")
            engine.sync_engine.set("x", 10)
            with pytest.raises(redis.WatchError):
                await pipe.execute()

        async def bump(pipe: fa.Pipeline) -> int:
            value = int(await pipe.get("x"))
            pipe.multi()
            pipe.set("x", value + 1)
            return value

        assert await engine.transaction(bump, "x", value_from_callable=True) == 10
        assert await engine.get("x") == b"11"
        pipe = engine.pipeline(transaction=False)
        pipe.incr("x").incr("z", "bad")
        res = await pipe.execute(raise_on_error=False)
        assert res[0] == 12 and isinstance(res[1], redis.ResponseError)

    asyncio.run(main())


def test_cms_topk() -> None:
    async def main() -> None:
        engine = fa.Engine()
        assert await engine.cms().initbydim("c", 100, 4) is True
        assert await engine.cms().incrby("c", ["a", "b"], [2, 3]) == [2, 3]
        assert await engine.cms().query("c", "a", "b") == [2, 3]
        assert await engine.topk().reserve("t", 2, 20, 4, 1) is True
        await engine.topk().add("t", "a", "a", "b", "c", "c", "c")
        assert await engine.topk().list("t") == ["c", "a"]

    asyncio.run(main())


def test_blocking_pop_does_not_block_the_loop() -> None:
    async def main() -> None:
        engine = fa.Engine()
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            for _ in range(10):
                await asyncio.sleep(0.01)
                ticks += 1
            await engine.zadd("q", {"m": 1})

        t0 = time.monotonic()
        popped, _ = await asyncio.gather(engine.bzpopmin("q", timeout=0), ticker())
        assert popped == (b"q", b"m", 1.0) and ticks == 10
        assert time.monotonic() - t0 < 1
        assert await engine.bzpopmax("q", timeout=0.05) is None

        # a write from another thread wakes the waiter too
        threading.Timer(0.05, lambda: engine.sync_engine.zadd("q2", {"x": 2})).start()
        assert await engine.bzmpop(2, 1, ["q2"], min=True) == [b"q2", [[b"x", b"2"]]]  # redis-py leaves BZMPOP raw

        # cancelling a waiter loses nothing
        task = asyncio.ensure_future(engine.bzpopmin("q3", timeout=0))
        await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await engine.zadd("q3", {"y": 3})
        await asyncio.sleep(0.02)
        assert await engine.zcard("q3") == 1
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(engine.bzpopmin("none", timeout=0), 0.05)

    asyncio.run(main())


def test_connect() -> None:
    assert isinstance(fa.connect("memory://"), fa.Engine)
    assert isinstance(fa.connect("redis://127.0.0.1:1/0"), redis.asyncio.Redis)
    with pytest.raises(ValueError):
        fa.connect("ftp://x")
