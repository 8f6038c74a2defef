"""MULTI / EXEC / DISCARD / WATCH sent as commands: client under test vs Redis 7.0.

redis-py's transaction pipeline sends MULTI, the queued commands, EXEC on one
connection. A DISCARD, EXEC, MULTI or WATCH queued among them is run by the
server at once: DISCARD (or EXEC) ends the transaction, so what follows runs
immediately and the final EXEC fails with "EXEC without MULTI"; MULTI and
WATCH inside the transaction answer an error and the transaction goes on; a
wrong arity flags it so that EXEC aborts. Each scenario runs on both sides;
the outcome (results, or the exception class and text) and the keyspace
afterwards must agree. The same through the asyncio clients.
"""
from __future__ import annotations

import asyncio
from typing import Any, Callable, Dict

import pytest
import redis

from differential import Outcome, Pair
from test_diff_asyncio import AsyncPair


def discard_then_set(raise_on_error: bool) -> Callable[[Any], Any]:
    """MULTI, SET k 1, DISCARD, SET k 2, EXEC."""

    def scenario(c: Any) -> Any:
        p = c.pipeline()
        p.multi()
        p.set("k", 1)
        p.discard()
        p.set("k", 2)
        return p.execute(raise_on_error=raise_on_error)

    return scenario


def nested_multi(raise_on_error: bool) -> Callable[[Any], Any]:
    """MULTI, SET k 5, MULTI, SET k 6, EXEC."""

    def scenario(c: Any) -> Any:
        p = c.pipeline(transaction=True)
        p.set("k", 5)
        p.execute_command("MULTI")
        p.set("k", 6)
        return p.execute(raise_on_error=raise_on_error)

    return scenario


def watch_inside_multi(raise_on_error: bool) -> Callable[[Any], Any]:
    def scenario(c: Any) -> Any:
        p = c.pipeline()
        p.multi()
        p.set("w", 1)
        p.execute_command("WATCH", "w")
        p.get("w")
        return p.execute(raise_on_error=raise_on_error)

    return scenario


def stack(*commands: Any, transaction: bool = True, raise_on_error: bool = True,
          before: Callable[[Any], Any] = lambda c: None) -> Callable[[Any], Any]:
    """A pipeline of raw commands (tuples of execute_command arguments).

    A transaction calls multi() first, so that a WATCH is queued too (before
    it, redis-py would run a WATCH at once)."""

    def scenario(c: Any) -> Any:
        before(c)
        p = c.pipeline(transaction=transaction)
        if transaction:
            p.multi()
        for args in commands:
            p.execute_command(*args)
        return p.execute(raise_on_error=raise_on_error)

    return scenario


def watched_then_discard(c: Any) -> Any:
    """A WATCHing pipeline whose transaction is discarded: DISCARD unwatches."""
    with c.pipeline() as p:
        p.watch("k")
        c.set("k", "meddled")
        p.multi()
        p.set("k", 7)
        p.discard()
        p.set("k", 8)
        return p.execute()


def exec_in_stack_after_watch_failed(c: Any) -> Any:
    with c.pipeline() as p:
        p.watch("w")
        c.set("w", "meddled")
        p.multi()
        p.set("a", 1)
        p.execute_command("EXEC")  # nil: nothing applied; SET b then runs at once
        p.set("b", 2)
        return p.execute()


def not_integer(c: Any) -> None:
    c.set("s", "x")


SCENARIOS: Dict[str, Callable[[Any], Any]] = {
    # DISCARD queued in the transaction
    "discard_then_set": discard_then_set(True),
    "discard_then_set_no_raise": discard_then_set(False),
    "discard_then_failing_command": stack(("SET", "k", 1), ("DISCARD",), ("INCR", "s"),
                                          ("SET", "k", 2), before=not_integer),
    "unknown_command_then_discard": stack(("NOSUCH",), ("SET", "k", 1), ("DISCARD",),
                                          ("SET", "k", 3)),
    "discard_wrong_arity": stack(("SET", "k", 1), ("DISCARD", "x"), ("SET", "k", 3),
                                 raise_on_error=False),
    "discard_then_multi_again": stack(("SET", "k", 1), ("DISCARD",), ("MULTI",),
                                      ("SET", "k", 2)),
    "discard_then_watch_then_multi": stack(("DISCARD",), ("WATCH", "w"), ("SET", "w", 5),
                                           ("MULTI",), ("SET", "b", 2)),
    "discard_only": stack(("DISCARD",)),
    "discard_lower_case": stack(("SET", "a", 1), ("discard",), ("get",), ("SET", "b", 2),
                                raise_on_error=False),
    "watched_then_discard": watched_then_discard,
    # EXEC queued in the transaction
    "exec_in_stack": stack(("SET", "k", 1), ("EXEC",), ("SET", "k", 3)),
    "exec_in_stack_with_errors": stack(("INCR", "s"), ("SET", "a", 1), ("EXEC",),
                                       raise_on_error=False, before=not_integer),
    "exec_in_stack_after_queue_error": stack(("NOSUCH",), ("SET", "a", 1), ("EXEC",),
                                             ("SET", "b", 2), raise_on_error=False),
    "exec_wrong_arity_in_stack": stack(("SET", "a", 1), ("EXEC", "x"), ("SET", "b", 2),
                                       raise_on_error=False),
    "exec_in_stack_after_watch_failed": exec_in_stack_after_watch_failed,
    # MULTI and WATCH queued in the transaction
    "nested_multi": nested_multi(True),
    "nested_multi_no_raise": nested_multi(False),
    "nested_multi_twice": stack(("MULTI",), ("MULTI",), ("GET", "k"), raise_on_error=False),
    "multi_wrong_arity": stack(("MULTI", "x"), ("SET", "k", 6)),
    "watch_inside_multi": watch_inside_multi(True),
    "watch_inside_multi_no_raise": watch_inside_multi(False),
    "watch_no_keys_inside_multi": stack(("SET", "a", 1), ("WATCH",)),
    # no transaction open
    "plain_pipeline_discard_exec": stack(("SET", "k", 1), ("DISCARD",), ("EXEC",),
                                         ("SET", "k", 3), transaction=False,
                                         raise_on_error=False),
    "bare_discard": lambda c: c.execute_command("DISCARD"),
    "bare_exec": lambda c: c.execute_command("EXEC"),
    "bare_discard_wrong_arity": lambda c: c.execute_command("DISCARD", "x"),
    "bare_exec_wrong_arity": lambda c: c.execute_command("EXEC", "x"),
    "bare_multi_wrong_arity": lambda c: c.execute_command("MULTI", "x"),
}

#: What the real server gave for the cases of the report (checked on the
#: real side, so that a wrong reference fails as loudly as a wrong Engine).
EXPECTED_REAL = {
    "discard_then_set": (redis.ResponseError, "EXEC without MULTI", {b"k": b"2"}),
    "bare_discard": (redis.ResponseError, "DISCARD without MULTI", {}),
    "bare_exec": (redis.ResponseError, "EXEC without MULTI", {}),
}


def _values(c: Any) -> Dict[Any, Any]:
    return {k: c.get(k) for k in c.keys("*") if c.type(k) in (b"string", "string")}


@pytest.mark.parametrize("decode", [False, True], ids=["bytes", "decoded"])
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_txn_control(request: pytest.FixtureRequest, name: str, decode: bool) -> None:
    pair: Pair = request.getfixturevalue("pair_decoded" if decode else "pair")
    pair.flushall()
    real: Outcome = pair.apply(name, SCENARIOS[name], reraise=False)
    pair.check_keyspace(f"after {name}")
    values = pair.apply("string values", _values)
    if name in EXPECTED_REAL and not decode:
        cls, text, data = EXPECTED_REAL[name]
        assert type(real.error) is cls and str(real.error) == text, real
        assert values == data
    if name == "nested_multi_no_raise":
        # [True, <nested MULTI error>, True]: the transaction still ran.
        assert real.value[0] is True and real.value[2] is True
        assert isinstance(real.value[1], redis.ResponseError)
        assert "MULTI calls can not be nested" in str(real.value[1])


# -- the same through fastrank.asyncio / redis.asyncio ----------------------


async def _a_discard_then_set(c: Any) -> Any:
    p = c.pipeline()
    p.multi()
    p.set("k", 1)
    await p.discard()  # queued: the async discard() awaits execute_command
    p.set("k", 2)
    return await p.execute()


async def _a_nested_multi(c: Any) -> Any:
    p = c.pipeline(transaction=True)
    p.set("k", 5)
    p.execute_command("MULTI")
    p.set("k", 6)
    return await p.execute(raise_on_error=False)


async def _a_nested_multi_raise(c: Any) -> Any:
    p = c.pipeline(transaction=True)
    p.set("k", 5)
    p.execute_command("MULTI")
    p.set("k", 6)
    return await p.execute()


async def _a_watch_inside_multi(c: Any) -> Any:
    p = c.pipeline()
    p.multi()
    p.set("w", 1)
    p.execute_command("WATCH", "w")
    p.get("w")
    return await p.execute(raise_on_error=False)


async def _a_watch_inside_multi_raise(c: Any) -> Any:
    p = c.pipeline()
    p.multi()
    p.set("w", 1)
    p.execute_command("WATCH", "w")
    return await p.execute()


async def _a_exec_in_stack(c: Any) -> Any:
    p = c.pipeline()
    p.set("k", 1)
    p.execute_command("EXEC")
    p.set("k", 3)
    return await p.execute()


ASYNC_SCENARIOS: Dict[str, Callable[[Any], Any]] = {
    "discard_then_set": _a_discard_then_set,
    "nested_multi": _a_nested_multi,
    "nested_multi_raise": _a_nested_multi_raise,
    "watch_inside_multi": _a_watch_inside_multi,
    "watch_inside_multi_raise": _a_watch_inside_multi_raise,
    "exec_in_stack": _a_exec_in_stack,
    "bare_discard": lambda c: c.execute_command("DISCARD"),
    "bare_exec": lambda c: c.execute_command("EXEC"),
    "bare_exec_wrong_arity": lambda c: c.execute_command("EXEC", "x"),
}


@pytest.mark.parametrize("name", list(ASYNC_SCENARIOS))
def test_txn_control_asyncio(redis_server: Any, name: str) -> None:
    async def main() -> Outcome:
        p = AsyncPair(redis_server.port, label=f"asyncio {name}")
        try:
            real = await p.compare(name, ASYNC_SCENARIOS[name])
            p.check_keyspace(f"after {name}")
            return real
        finally:
            await p.aclose()

    real = asyncio.run(main())
    assert (real.error is None) == (name in ("nested_multi", "watch_inside_multi"))
