"""fastrank.asyncio.Engine vs redis.asyncio.Redis on the real Redis 7.0 server.

The random command streams of the sync differential suite (``ZsetGen``,
``StringsGen``: recorded by ``draw_specs``) are replayed, awaited, on both
async clients; every reply must agree (values with exact types through
``canon``, errors by class and text), then the keyspaces (dumped through
sync clients on the same data). Pipelines (transaction True/False,
raise_on_error True/False), WATCH, blocking pops and ``cms()``/``topk()``
(decay=1) the same way. No pytest-asyncio: each test runs ``asyncio.run``.
"""
from __future__ import annotations

import asyncio
import inspect
import random
from typing import Any, Awaitable, Callable, List

import pytest
import redis
import redis.asyncio

import fastrank
import fastrank.asyncio as fa
from fastrank.engine.asyncio import command_method_names
from differential import Outcome, canon, dump_keyspace, fmt_call, steps
from strings_gen import StringsGen
from test_diff_pipeline import Spec, draw_specs, is_unordered
from zset_gen import ZsetGen

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


async def outcome(make: Callable[[], Any]) -> Outcome:
    """Call, await (or collect an async iterator): the Outcome."""
    try:
        value = make()
        if inspect.isawaitable(value):
            value = await value
        elif hasattr(value, "__aiter__"):
            value = [v async for v in value]
        return Outcome(value=value)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # noqa: BLE001
        return Outcome(error=exc)


#: Replies that are a random pick when the count is below the size (the
#: generators expect them only where the reply is determined, but a replayed
#: stream skips the generators' non-pipelinable ops, so key types can differ).
RANDOM_REPLIES = frozenset({"zrandmember", "srandmember", "randomkey"})


def shape(out: Outcome) -> Any:
    if out.error is not None:
        return out.key()
    if type(out.value) is not list:
        return type(out.value).__name__
    return ("list", len(out.value), sorted({type(v).__name__ for v in out.value}))


class AsyncPair:
    """The async engine and redis.asyncio on the real server, compared call by call."""

    def __init__(self, port: int, decode: bool = False, label: str = ""):
        self.engine = fa.Engine(decode_responses=decode)
        self.real = redis.asyncio.Redis(host="127.0.0.1", port=port, decode_responses=decode)
        self.sync_real = redis.Redis(host="127.0.0.1", port=port, decode_responses=decode)
        self.sync_real.flushall()
        self.label = label
        self.history: List[str] = []

    async def compare(self, what: str, fn: Callable[[Any], Any], unordered: bool = False,
                      random_reply: bool = False) -> Outcome:
        mine = await outcome(lambda: fn(self.engine))
        ref = await outcome(lambda: fn(self.real))
        self.history.append(f"{what} -> {ref!r}")
        if random_reply:  # a random pick: the same shape, not the same members
            same = shape(mine) == shape(ref)
        else:
            same = mine.key(unordered) == ref.key(unordered)
        if not same:
            recent = "\n  ".join(self.history[-12:])
            raise AssertionError(f"{self.label}: step {len(self.history)}: {what}\n"
                                 f"  fastrank.asyncio: {mine!r}\n  redis.asyncio:    {ref!r}\n"
                                 f"recent:\n  {recent}")
        return ref

    async def call(self, method: str, *args: Any, **kwargs: Any) -> Outcome:
        return await self.compare(fmt_call(method, args, kwargs),
                                  lambda c: getattr(c, method)(*args, **kwargs),
                                  is_unordered(method, args), method in RANDOM_REPLIES)

    def check_keyspace(self, when: str) -> None:
        mine = canon(dump_keyspace(self.engine.sync_engine))
        ref = canon(dump_keyspace(self.sync_real))
        assert mine == ref, f"{self.label}: keyspaces differ {when}"

    async def aclose(self) -> None:
        await self.engine.aclose()
        await self.real.aclose()
        self.sync_real.close()


def run(coro_fn: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(coro_fn())


@pytest.mark.parametrize("gen_cls", [ZsetGen, StringsGen], ids=["zset", "strings-keys"])
@pytest.mark.parametrize("decode", [False, True], ids=["bytes", "decoded"])
def test_random_commands(redis_server: Any, seed: int, gen_cls: Any, decode: bool) -> None:
    specs = draw_specs(gen_cls(random.Random(seed), decoded=decode), steps(600))

    async def main() -> None:
        p = AsyncPair(redis_server.port, decode, f"{gen_cls.__name__} seed={seed}")
        try:
            for i, (method, args, kwargs) in enumerate(specs):
                await p.call(method, *args, **kwargs)
                if i % 200 == 199:
                    p.check_keyspace(f"after step {i}")
            p.check_keyspace("at the end")
        finally:
            await p.aclose()

    run(main)


async def run_pipeline(client: Any, specs: List[Spec], transaction: bool,
                       raise_on_error: bool) -> Any:
    async with client.pipeline(transaction=transaction) as pipe:
        for method, args, kwargs in specs:
            queued = getattr(pipe, method)(*args, **kwargs)
            assert queued is pipe, f"{method} did not return the pipeline"
        results = await pipe.execute(raise_on_error=raise_on_error)
    for i, (method, args, _) in enumerate(specs):
        if i < len(results) and type(results[i]) is list and is_unordered(method, args):
            results[i] = sorted(results[i], key=lambda v: repr(canon(v)))
    return results


def test_random_pipelines(redis_server: Any, seed: int) -> None:
    rng = random.Random(seed)
    zgen, sgen = ZsetGen(random.Random(seed + 100)), StringsGen(random.Random(seed + 200))

    async def main() -> None:
        p = AsyncPair(redis_server.port, label=f"pipelines seed={seed}")
        try:
            for _ in range(steps(40)):
                gen = zgen if rng.random() < 0.6 else sgen
                specs = draw_specs(gen, rng.randint(1, 8))
                transaction, raise_on_error = rng.random() < 0.6, rng.random() < 0.5
                label = f"pipeline(transaction={transaction}, raise_on_error={raise_on_error}) " \
                        + "; ".join(fmt_call(m, a, k) for m, a, k in specs)
                await p.compare(label, lambda c: run_pipeline(c, specs, transaction,
                                                              raise_on_error))
                p.check_keyspace("after the pipeline")
        finally:
            await p.aclose()

    run(main)


def test_watch_multi_exec(redis_server: Any) -> None:
    async def scenario(c: Any, other: Any) -> List[Any]:
        out: List[Any] = []
        await c.set("w", 1)
        async with c.pipeline() as pipe:
            out.append(await pipe.watch("w"))
            out.append(await pipe.get("w"))        # immediate mode
            pipe.multi()
            out.append(pipe.incr("w") is pipe)
            out.append(await pipe.execute())
        async with c.pipeline() as pipe:
            await pipe.watch("w")
            await other.set("w", 10)               # someone else writes
            pipe.multi()
            pipe.incr("w")
            try:
                await pipe.execute()
            except redis.WatchError as e:
                out.append(("WatchError", str(e)))
        async with c.pipeline(transaction=False) as pipe:
            out.append(await pipe.set("a", 1).incr("a").get("a").execute())

        async def add_one(pipe: Any) -> Any:
            value = int(await pipe.get("w"))
            pipe.multi()
            pipe.set("w", value + 1)
            return value

        out.append(await c.transaction(add_one, "w", value_from_callable=True))
        out.append(await c.get("w"))
        return out

    async def main() -> None:
        p = AsyncPair(redis_server.port, label="watch")
        second = redis.asyncio.Redis(host="127.0.0.1", port=redis_server.port)
        try:
            await p.compare("watch scenario",
                            lambda c: scenario(c, c if c is p.engine else second))
        finally:
            await second.aclose()
            await p.aclose()

    run(main)


def test_blocking_pops(redis_server: Any) -> None:
    async def scenario(c: Any) -> List[Any]:
        out: List[Any] = [await c.bzpopmin("bq", timeout=0.05)]
        await c.zadd("bq", {"a": 1, "b": 2, "c": 3})
        out.append(await c.bzpopmin(["none", "bq"], timeout=1))
        out.append(await c.bzpopmax("bq", timeout=1))
        out.append(await c.bzmpop(1, 2, ["none", "bq"], min=True, count=5))
        out.append(await c.bzmpop(0.05, 1, ["bq"], max=True))
        await c.set("str", "x")
        for call in (lambda: c.bzpopmin("str", timeout=1), lambda: c.bzpopmin("bq", timeout=-1),
                     lambda: c.bzpopmin("bq", timeout="x")):
            out.append(canon((await outcome(call)).key()))

        async def later() -> None:
            await asyncio.sleep(0.05)
            await c.zadd("late", {"m": 5})

        out.append((await asyncio.gather(c.bzpopmax("late", timeout=0), later()))[0])
        return out

    async def main() -> None:
        p = AsyncPair(redis_server.port, label="blocking")
        try:
            await p.compare("blocking scenario", scenario)
            p.check_keyspace("at the end")
        finally:
            await p.aclose()

    run(main)


def test_cms_topk(redisbloom: Any, seed: int) -> None:
    rng = random.Random(seed)
    items = [f"u{i}" for i in range(30)] + [b"b\x00x", 7]

    def info(obj: Any) -> Any:
        return (type(obj).__name__, sorted(vars(obj).items())) if hasattr(obj, "__dict__") \
            else obj

    async def main() -> None:
        p = AsyncPair(redisbloom.port, label=f"cms/topk seed={seed}")
        try:
            await p.compare("cms().initbydim", lambda c: c.cms().initbydim("c1", 200, 4))
            await p.compare("cms().initbyprob", lambda c: c.cms().initbyprob("c2", 0.01, 0.01))
            await p.compare("cms().initbydim c3", lambda c: c.cms().initbydim("c3", 200, 4))
            await p.compare("topk().reserve", lambda c: c.topk().reserve("t", 5, 50, 4, 1))
            for _ in range(steps(150)):
                batch = [rng.choice(items) for _ in range(rng.randint(1, 6))]
                incs = [rng.randint(1, 5) for _ in batch]
                op = rng.randrange(9)
                if op == 0:
                    await p.compare(f"cms().incrby({batch}, {incs})",
                                    lambda c: c.cms().incrby("c1", batch, incs))
                elif op == 1:
                    await p.compare(f"cms().query({batch})", lambda c: c.cms().query("c1", *batch))
                elif op == 2:
                    src = rng.choice(["c1", "c2"])  # c2's sizes differ: an error
                    await p.compare(f"cms().merge(c3, [{src}])",
                                    lambda c: c.cms().merge("c3", 1, [src], [2]))
                elif op == 3:
                    await p.compare("cms().info", lambda c: _then(c.cms().info("c1"), info))
                elif op == 4:
                    await p.compare(f"topk().add({batch})", lambda c: c.topk().add("t", *batch))
                elif op == 5:
                    await p.compare(f"topk().incrby({batch}, {incs})",
                                    lambda c: c.topk().incrby("t", batch, incs))
                elif op == 6:
                    await p.compare(f"topk().query({batch})", lambda c: c.topk().query("t", *batch))
                elif op == 7:
                    withcount = rng.random() < 0.5
                    await p.compare(f"topk().list(withcount={withcount})",
                                    lambda c: c.topk().list("t", withcount=withcount))
                else:
                    await p.compare("errors", lambda c: c.cms().incrby("t", ["a"], [1]))
            await p.compare("topk().info", lambda c: _then(c.topk().info("t"), info))
            await p.compare("pipelined cms", lambda c: _pipelined_cms(c))
        finally:
            await p.aclose()

    run(main)


async def _then(awaitable: Any, fn: Callable[[Any], Any]) -> Any:
    return fn(await awaitable)


async def _pipelined_cms(c: Any) -> Any:
    async with c.pipeline() as pipe:
        pipe.cms().incrby("c1", ["u1", "u2"], [1, 2])
        pipe.cms().query("c1", "u1", "u2")
        pipe.topk().list("t")
        return await pipe.execute()


def test_every_sync_command_method_is_async() -> None:
    """Each public command method of fastrank.Engine is a coroutine function (or an async
    iterator for *_iter) on fastrank.asyncio.Engine, with redis-py's parameters."""
    # register_script is a plain method on redis.asyncio.Redis too (it returns an
    # AsyncScript, whose calls are the coroutines): tested in commands/test_diff_scripting.py.
    names = [n for n in command_method_names() if n != "register_script"]
    assert len(names) > 300 and "zadd" in names and "bzpopmin" in names
    assert not inspect.iscoroutinefunction(fa.Engine.register_script)
    missing = []
    for name in names:
        method = getattr(fa.Engine, name, None)
        if not (inspect.iscoroutinefunction(method) or inspect.isasyncgenfunction(method)):
            missing.append(name)
            continue
        sync_params = list(inspect.signature(getattr(fastrank.Engine, name)).parameters)
        assert list(inspect.signature(method).parameters) == sync_params, name
    assert missing == []
    for name in ("pipeline", "transaction", "cms", "topk", "execute_command", "aclose"):
        assert hasattr(fa.Engine, name)
