"""Blocking list commands (and BZPOPMIN) woken by writes: client under test vs real Redis 7.0.

Sync: a thread waits in BLPOP / BRPOP / BLMOVE / BRPOPLPUSH / BLMPOP while
the main thread writes through the same client (another pooled connection
on the server) once the waiter is blocked (seen in the Engine's waiter
count, or CLIENT LIST's ``b`` flag); the waiter's reply and the keyspace
must agree. A key that turns into another
type while a client waits is not a wake-up (the server only serves a list);
a wrong destination for BLMOVE is an error.

asyncio: the same through ``fastrank.asyncio.Engine`` and
``redis.asyncio.Redis``, the writer a concurrent task.
"""
from __future__ import annotations

import asyncio
import threading
from typing import Any, Callable, List

import pytest

import fastrank
from differential import Pair, canon
from test_diff_asyncio import AsyncPair, outcome, run

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

PAUSE = 0.05  # asyncio: lets the waiter block first


def wait_until_blocked(c: Any) -> None:
    """Until a client is blocked: an Engine waiter, or a server client flagged 'b'."""
    for _ in range(1000):
        if isinstance(c, fastrank.Engine):
            if c._waiters:
                return
        elif any("b" in info.get("flags", "") for info in c.client_list()):
            return
        threading.Event().wait(0.005)
    raise AssertionError("the waiter never blocked")


def with_writer(wait: Callable[[Any], Any], write: Callable[[Any], Any],
                block: bool = True) -> Callable[[Any], Any]:
    """A scenario: ``wait(c)`` in a thread, ``write(c)`` once it blocks; the waiter's outcome."""

    def scenario(c: Any) -> Any:
        out: List[Any] = []

        def waiter() -> None:
            try:
                out.append(wait(c))
            except Exception as exc:  # noqa: BLE001 - the error is the outcome
                out.append(("error", type(exc).__name__, str(exc)))

        thread = threading.Thread(target=waiter)
        thread.start()
        if block:
            wait_until_blocked(c)
        write(c)
        thread.join(10)
        return out

    return scenario


SCENARIOS = {
    "blpop two keys, push to the second":
        (lambda c: c.blpop(["q1", "q2"], 5), lambda c: c.rpush("q2", "x", "y")),
    "brpop, push three":
        (lambda c: c.brpop(["q"], 5), lambda c: c.rpush("q", "a", "b", "c")),
    "blmove to a new list":
        (lambda c: c.blmove("q", "dst", 5, "RIGHT", "LEFT"), lambda c: c.lpush("q", "a", "b")),
    "brpoplpush":
        (lambda c: c.brpoplpush("q", "dst", 5), lambda c: c.rpush("q", "a", "b")),
    "blmpop with a count":
        (lambda c: c.blmpop(5, 2, "q1", "q", direction="LEFT", count=2),
         lambda c: c.rpush("q", "a", "b", "c")),
    "blpop woken by lmove into its key":
        (lambda c: c.blpop(["q"], 5), lambda c: (c.rpush("src", "s"), c.lmove("src", "q"))),
    "blpop ignores a string, then gets a list":
        (lambda c: c.blpop(["q"], 5),
         lambda c: (c.set("q", "str"), c.delete("q"), c.rpush("q", "late"))),
    "blpop passes over a key that became a string":
        (lambda c: c.blpop(["q1", "q2"], 5),
         lambda c: (c.set("q1", "str"), c.rpush("q2", "ok"))),
    "blmove with a destination of another type":
        (lambda c: c.blmove("q", "dst", 5), lambda c: (c.set("dst", "s"), c.rpush("q", "a"))),
    "bzpopmin passes over a key that became a list":
        (lambda c: c.bzpopmin(["z"], 5),
         lambda c: (c.rpush("z", "a"), c.delete("z"), c.zadd("z", {"m": 1}))),
    "blpop passes over a key that became a zset":
        (lambda c: c.blpop(["q"], 5),
         lambda c: (c.zadd("q", {"m": 1}), c.delete("q"), c.rpush("q", "x"))),
    "blpop in a transaction pushed": (
        lambda c: c.blpop(["q"], 5),
        lambda c: c.pipeline().rpush("q", "a", "b").lpop("q").execute()),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_blocking_list_command_woken_by_a_write(pair: Pair, name: str) -> None:
    wait, write = SCENARIOS[name]
    pair.apply(name, with_writer(wait, write))
    pair.check_keyspace()


def test_blocking_list_command_times_out(pair: Pair) -> None:
    pair.apply("blpop times out, then the key is written",
               with_writer(lambda c: c.blpop(["q"], 0.01), lambda c: c.rpush("other", "x"),
                           block=False))
    pair.check_keyspace()


def test_asyncio_blocking_list_commands(redis_server: Any) -> None:
    async def scenario(c: Any) -> List[Any]:
        out: List[Any] = [await c.blpop(["aq"], 0.05)]
        await c.rpush("aq", "a", "b", "c")
        out.append(await c.blpop(["none", "aq"], 1))
        out.append(await c.brpop(["aq"], 1))
        out.append(await c.blmove("aq", "dst", 1, "LEFT", "RIGHT"))
        out.append(await c.brpoplpush("none", "dst", 0.05))
        out.append(await c.blmpop(1, 2, "none", "dst", direction="RIGHT", count=5))
        await c.set("str", "x")
        for call in (lambda: c.blpop(["str"], 1), lambda: c.blpop(["aq"], -1),
                     lambda: c.brpop(["aq"], "x"), lambda: c.blmpop(1, 1, "str", direction="LEFT")):
            out.append(canon((await outcome(call)).key()))

        async def later(*pushes: Any) -> None:
            await asyncio.sleep(PAUSE)
            for key, value in pushes:
                await c.rpush(key, value)

        out.append((await asyncio.gather(c.blpop(["l1", "l2"], 0), later(("l2", "m"))))[0])
        out.append((await asyncio.gather(c.blmove("l3", "l4", 0), later(("l3", "n"))))[0])
        out.append((await asyncio.gather(c.brpoplpush("l5", "l6", 0), later(("l5", "o"))))[0])
        out.append((await asyncio.gather(c.blmpop(0, 1, "l7", direction="LEFT", count=3),
                                         later(("l7", "p"))))[0])
        async def retype_then_push() -> None:
            await asyncio.sleep(PAUSE)
            await c.set("l8", "str")
            await c.rpush("l9", "q")

        out.append((await asyncio.gather(c.blpop(["l8", "l9"], 0), retype_then_push()))[0])

        async def wrong_destination() -> None:
            await asyncio.sleep(PAUSE)
            await c.set("l11", "str")
            await c.rpush("l10", "r")

        out.append(canon((await outcome(lambda: asyncio.gather(c.blmove("l10", "l11", 0),
                                                                wrong_destination()))).key()))
        async def list_then_zset() -> None:
            await asyncio.sleep(PAUSE)
            await c.rpush("z1", "a")
            await c.delete("z1")
            await c.zadd("z1", {"s": 2})

        out.append((await asyncio.gather(c.bzpopmin("z1", 0), list_then_zset()))[0])
        async with c.pipeline() as pipe:                   # MULTI: never waits
            pipe.blpop(["none"], 0).brpoplpush("none", "x", 0).blmpop(0, 1, "none",
                                                                     direction="LEFT")
            out.append(await pipe.execute())
        return out

    async def main() -> None:
        p = AsyncPair(redis_server.port, label="blocking lists")
        try:
            await p.compare("blocking list scenario", scenario)
            p.check_keyspace("at the end")
        finally:
            await p.aclose()

    run(main)
