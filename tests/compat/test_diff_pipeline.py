"""Pipelines (transaction=True and False): client under test vs real Redis 7.0.

Random pipelines are assembled from the same command generators as the
single-command tests (so they mix valid and failing commands: client-side
DataErrors at queue time, server errors at queue time such as wrong arity,
and errors at execution time such as WRONGTYPE), executed with
``raise_on_error`` True and False, and compared on the ``execute()`` result
or the raised error (class and text, which redis-py annotates with the
command's position and text). The keyspaces are compared after each one.
"""
from __future__ import annotations

import random
from typing import Any, Callable, List, Tuple

import pytest
import redis

from differential import (UNORDERED_COMMANDS, UNORDERED_METHODS, Outcome, Pair, canon,
                          fmt_call, steps)
from strings_gen import StringsGen
from zset_gen import ZsetGen

pytestmark = pytest.mark.filterwarnings("ignore:Call to deprecated:DeprecationWarning")

Spec = Tuple[str, tuple, dict]


class Recorder:
    """Stands in for a Pair: records the generators' calls instead of running them."""

    def __init__(self) -> None:
        self.specs: List[Spec] = []

    def quiet(self, method: str, *args: Any, **kwargs: Any) -> Outcome:
        self.specs.append((method, args, kwargs))
        return Outcome(value=None)

    def apply(self, label: str, fn: Callable, **kwargs: Any) -> Outcome:
        return Outcome(value=None)      # timing-dependent or client-side only: not pipelined


def draw_specs(gen: Any, n: int) -> List[Spec]:
    """At least ``n`` calls: whole operations, never cut (an op may add a follow-up call)."""
    rec = Recorder()
    while len(rec.specs) < n:
        gen.step(rec)
    return rec.specs


def is_unordered(method: str, args: tuple) -> bool:
    if method == "execute_command" and args and isinstance(args[0], str):
        return args[0].upper() in UNORDERED_COMMANDS
    return method in UNORDERED_METHODS


def run_pipeline(client: Any, specs: List[Spec], transaction: bool, raise_on_error: bool) -> Any:
    """Queue ``specs``, execute; replies of unordered commands come back sorted."""
    with client.pipeline(transaction=transaction) as pipe:
        for method, args, kwargs in specs:
            getattr(pipe, method)(*args, **kwargs)
        results = pipe.execute(raise_on_error=raise_on_error)
    for i, (method, args, _) in enumerate(specs):
        if i < len(results) and type(results[i]) is list and is_unordered(method, args):
            results[i] = sorted(results[i], key=lambda v: repr(canon(v)))
    return results


def pipeline_label(specs: List[Spec], transaction: bool, raise_on_error: bool) -> str:
    calls = "; ".join(fmt_call(m, a, k) for m, a, k in specs)
    return (f"pipeline(transaction={transaction}) [{calls}]"
            f".execute(raise_on_error={raise_on_error})")


def compare_pipeline(p: Pair, specs: List[Spec], transaction: bool,
                     raise_on_error: bool = True) -> Outcome:
    out = p.apply(pipeline_label(specs, transaction, raise_on_error),
                  lambda c: run_pipeline(c, specs, transaction, raise_on_error), reraise=False)
    p.check_keyspace("after the pipeline")
    return out


def random_pipelines(p: Pair, seed: int, count: int, decoded: bool = False) -> None:
    rng = random.Random(seed)
    zgen = ZsetGen(rng, decoded=decoded)
    sgen = StringsGen(rng, decoded=decoded)
    for i in range(count):
        gen = zgen if rng.random() < 0.5 else sgen
        if i % 40 == 0:
            zgen.op_reset_others(p)
            sgen.op_setup(p)
        specs = draw_specs(gen, rng.choice([0, 1, 2, 3, 5, 8]))
        compare_pipeline(p, specs, transaction=rng.random() < 0.5,
                         raise_on_error=rng.random() < 0.5)


@pytest.mark.parametrize("transaction", [True, False], ids=["multi", "plain"])
def test_pipeline_random_mixed(pair: Pair, seed: int, transaction: bool) -> None:
    rng = random.Random(seed * 17 + transaction)
    zgen = ZsetGen(rng)
    sgen = StringsGen(rng)
    zgen.op_reset_others(pair)
    sgen.op_setup(pair)
    for i in range(steps(150)):
        gen = zgen if rng.random() < 0.5 else sgen
        specs = draw_specs(gen, rng.choice([1, 2, 3, 5, 8]))
        compare_pipeline(pair, specs, transaction, raise_on_error=rng.random() < 0.5)


def test_pipeline_random_decoded(pair_decoded: Pair, seed: int) -> None:
    random_pipelines(pair_decoded, seed * 31 + 7, steps(120), decoded=True)


# --------------------------------------------------------------------------
# Directed
# --------------------------------------------------------------------------

MIXED: List[Spec] = [
    ("set", ("s", "v"), {}),
    ("zadd", ("z", {"a": 1, "b": 2}), {}),
    ("zadd", ("s", {"a": 1}), {}),                            # WRONGTYPE at execution
    ("incr", ("s",), {}),                                     # not an integer
    ("execute_command", ("ZADD", "z", "XX", "1"), {}),        # syntax error
    ("zrange", ("z", 0, -1), {"withscores": True}),
    ("zincrby", ("z", 0.1, "a"), {}),
    ("get", ("s",), {}),
    ("incrbyfloat", ("f", 0.1), {}),
    ("zscore", ("z", "a"), {}),
]


@pytest.mark.parametrize("raise_on_error", [True, False], ids=["raise", "noraise"])
@pytest.mark.parametrize("transaction", [True, False], ids=["multi", "plain"])
def test_pipeline_mixed_valid_and_failing(pair: Pair, transaction: bool,
                                          raise_on_error: bool) -> None:
    compare_pipeline(pair, MIXED, transaction, raise_on_error)
    compare_pipeline(pair, MIXED[::-1], transaction, raise_on_error)


@pytest.mark.parametrize("raise_on_error", [True, False], ids=["raise", "noraise"])
@pytest.mark.parametrize("transaction", [True, False], ids=["multi", "plain"])
def test_pipeline_queue_time_errors(pair: Pair, transaction: bool, raise_on_error: bool) -> None:
    """Errors the server reports while queueing (arity, unknown command) abort a MULTI."""
    pair.set("k", "1")
    cases: List[List[Spec]] = [
        [("incr", ("k",), {}), ("execute_command", ("ZADD", "z"), {}), ("incr", ("k",), {})],
        [("incr", ("k",), {}), ("execute_command", ("NOSUCHCMD", "x"), {}), ("get", ("k",), {})],
        [("execute_command", ("GET",), {}), ("set", ("k", "2"), {})],
        [("set", ("k", "3"), {}), ("execute_command", ("ZRANK", "z", "a", "WITHSCORE"), {}),
         ("get", ("k",), {})],
    ]
    for specs in cases:
        compare_pipeline(pair, specs, transaction, raise_on_error)


@pytest.mark.parametrize("transaction", [True, False], ids=["multi", "plain"])
def test_pipeline_client_side_data_error(pair: Pair, transaction: bool) -> None:
    """A redis-py DataError while queueing is raised by the queueing call itself."""
    specs: List[Spec] = [("set", ("k", "1"), {}), ("zadd", ("z", {}), {}), ("incr", ("k",), {})]
    compare_pipeline(pair, specs, transaction)
    specs = [("set", ("k", "1"), {}), ("set", ("k", None), {})]
    compare_pipeline(pair, specs, transaction)
    compare_pipeline(pair, [], transaction)


@pytest.mark.parametrize("transaction", [True, False], ids=["multi", "plain"])
def test_pipeline_reply_shapes(pair: Pair, transaction: bool) -> None:
    specs: List[Spec] = [
        ("zadd", ("z", {"a": 1, "b": 2.5, "c": -0.0}), {}),
        ("zrange", ("z", 0, -1), {"withscores": True}),
        ("zrevrangebyscore", ("z", "+inf", "-inf"), {"withscores": True, "start": 0, "num": 2}),
        ("zpopmin", ("z",), {}),
        ("zpopmax", ("z", 5), {}),
        ("zadd", ("z", {"x": 1}), {"incr": True}),
        ("zadd", ("z", {"x": 1}), {"incr": True, "nx": True}),
        ("zmscore", ("z", ["x", "nope"]), {}),
        ("set", ("s", "v"), {"nx": True}),
        ("set", ("s", "v"), {"nx": True}),
        ("set", ("s", "w"), {"get": True}),
        ("mget", (["s", "z", "nope"],), {}),
        ("expire", ("s", 100), {}),
        ("persist", ("s",), {}),
        ("type", ("z",), {}),
        ("exists", ("s", "s", "nope"), {}),
        ("sadd", ("set", "a", "b"), {}),
        ("smembers", ("set",), {}),
        ("hset", ("h", "f", "1"), {}),
        ("hgetall", ("h",), {}),
        ("incrbyfloat", ("fl", "0.1"), {}),
        ("flushdb", (), {}),
    ]
    compare_pipeline(pair, specs, transaction)


def test_pipeline_watch_multi(pair: Pair) -> None:
    """WATCH with no conflicting write executes; a write in between raises WatchError."""

    def unconflicted(c: Any) -> Any:
        with c.pipeline() as pipe:
            pipe.watch("w")
            current = pipe.get("w")
            pipe.multi()
            pipe.set("w", (current or b"0") + b"1")
            pipe.get("w")
            return pipe.execute()

    def conflicted(c: Any) -> Any:
        with c.pipeline() as pipe:
            pipe.watch("w")
            c.set("w", "changed")
            pipe.multi()
            pipe.set("w", "mine")
            return pipe.execute()

    pair.set("w", "0")
    pair.apply("watch/get/multi/set/get/execute", unconflicted)
    pair.apply("watch, outside write, multi/set/execute", conflicted, reraise=False)
    pair.get("w")
    pair.check_keyspace()


def test_pipeline_watch_error_class(pair: Pair) -> None:
    def conflicted(c: Any) -> Any:
        with c.pipeline() as pipe:
            pipe.watch("w")
            c.delete("w")
            pipe.multi()
            pipe.set("w", "mine")
            pipe.execute()

    pair.set("w", "1")
    out = pair.apply("watch, delete, multi/set/execute", conflicted, reraise=False)
    assert isinstance(out.error, redis.WatchError)
