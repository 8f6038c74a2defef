"""redis-py's Script objects on every client: the same workload of
``register_script`` calls (alone, in pipelines and transactions, after SCRIPT
FLUSH) gives the same replies on fastrank.Engine as on Redis 7.0, on
``fastrank.asyncio.Engine`` as on ``redis.asyncio.Redis``, and on the
3-master cluster fixture (keys under one hash tag) as on the Engine.
"""
from __future__ import annotations

import asyncio
from typing import Any, List

import pytest
import redis
import redis.asyncio

import fastrank
import fastrank.asyncio as fa
from differential import canon

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ADD = """
local score = redis.call('zincrby', KEYS[1], ARGV[1], ARGV[2])
redis.call('hset', KEYS[2], ARGV[2], score)
return {redis.call('zrevrank', KEYS[1], ARGV[2]), score}
"""
KEEP_BEST = """
local old = redis.call('zscore', KEYS[1], ARGV[2])
if old and tonumber(old) >= tonumber(ARGV[1]) then return 0 end
redis.call('zadd', KEYS[1], ARGV[1], ARGV[2])
return 1
"""
FAIL = "redis.call('set', KEYS[1], 'x') return redis.call('zadd', KEYS[1], 1, 'a')"


def workload(client: Any, board: str, names: str, pipelines: bool = True) -> List[Any]:
    """The register_script calls; ``pipelines=False`` on a cluster, whose
    redis-py pipelines refuse EVALSHA."""
    add = client.register_script(ADD)
    best = client.register_script(KEEP_BEST)
    fail = client.register_script(FAIL)
    out: List[Any] = [add(keys=[board, names], args=[10, "ann"]),
                      add(keys=[board, names], args=[2.5, "bob"]),
                      best(keys=[board], args=[5, "ann"]), best(keys=[board], args=[50, "ann"])]
    try:
        fail(keys=[board + "x"])
    except redis.ResponseError as exc:
        out.append(("error", str(exc)))
    client.script_flush()
    out.append(client.script_exists(add.sha, best.sha))
    for transaction in (True, False) if pipelines else ():
        pipe = client.pipeline(transaction=transaction)
        add(keys=[board, names], args=[1, "cy"], client=pipe)
        best(keys=[board], args=[7, "bob"], client=pipe)
        pipe.zrevrange(board, 0, -1, withscores=True)
        out.append(pipe.execute())
        client.script_flush()
    out.append(client.hgetall(names))
    return out


def test_register_script_sync(redis_client: redis.Redis) -> None:
    engine = fastrank.Engine()
    assert canon(workload(engine, "board", "names")) == \
        canon(workload(redis_client, "board", "names"))


def test_register_script_on_the_cluster(cluster_client: Any) -> None:
    engine = fastrank.Engine()
    expected = workload(engine, "{lb}:board", "{lb}:names", pipelines=False)
    got = workload(cluster_client, "{lb}:board", "{lb}:names", pipelines=False)
    assert canon(got) == canon(expected)


async def async_workload(client: Any) -> List[Any]:
    add = client.register_script(ADD)
    best = client.register_script(KEEP_BEST)
    out: List[Any] = [await add(keys=["board", "names"], args=[10, "ann"]),
                      await best(keys=["board"], args=[50, "ann"])]
    await client.script_flush()
    for transaction in (True, False):
        async with client.pipeline(transaction=transaction) as pipe:
            await add(keys=["board", "names"], args=[1, "cy"], client=pipe)
            await best(keys=["board"], args=[7, "bob"], client=pipe)
            pipe.zrevrange("board", 0, -1, withscores=True)
            out.append(await pipe.execute())
        await client.script_flush()
    out.append(await client.eval("return {KEYS[1], ARGV[1], 1.5}", 1, "k", "v"))
    try:
        await client.evalsha("0" * 40, 0)
    except redis.ResponseError as exc:
        out.append((type(exc).__name__, str(exc)))
    return out


def test_register_script_asyncio(redis_server: Any) -> None:
    async def both() -> List[Any]:
        real = redis.asyncio.Redis(host="127.0.0.1", port=redis_server.port)
        await real.flushall()
        try:
            expected = await async_workload(real)
        finally:
            await real.aclose()
        async with fa.Engine() as engine:
            got = await async_workload(engine)
        return [expected, got]

    expected, got = asyncio.run(both())
    assert canon(got) == canon(expected)
