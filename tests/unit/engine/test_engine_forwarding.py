"""The Engine's forwarding methods (engine.FORWARDED) are redis-py's methods.

Each row claims that redis-py's method only sends its parameters, in order,
as one command's arguments. Two proofs: redis-py's method, run on a recorder,
sends exactly (command, *arguments) for random arguments; and the Engine's
compiled method answers exactly as redis-py's method on the Engine (replies,
exception classes and texts, keyspace afterwards), over random keyspaces and
arguments of every type, with and without decode_responses.
"""
from __future__ import annotations

import inspect
import random
from typing import Any

import pytest
from redis.commands.core import CoreCommands

from fastrank import Engine
from fastrank.engine.engine import FORWARDED


class Recorder(CoreCommands):
    def __init__(self) -> None:
        self.sent: list[tuple[Any, ...]] = []

    def execute_command(self, *args: Any, **options: Any) -> Any:
        self.sent.append(args)
        return None


@pytest.mark.parametrize("name, word, fixed, rest", FORWARDED)
def test_the_row_matches_redis_py_signature_and_what_it_sends(name: str, word: str, fixed: int,
                                                               rest: bool) -> None:
    params = list(inspect.signature(getattr(CoreCommands, name)).parameters.values())[1:]
    plain = [p for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert len(plain) == fixed and all(p.default is p.empty for p in plain)
    assert [p.kind for p in params[fixed:]] == ([inspect.Parameter.VAR_POSITIONAL] if rest else [])
    rng = random.Random(name)
    for _ in range(20):
        args = tuple(rng.choice([b"k", "v", 7, -1.5, "é"]) for _ in
                     range(fixed + (rng.randrange(1, 4) if rest else 0)))
        recorder = Recorder()
        getattr(CoreCommands, name)(recorder, *args)
        assert recorder.sent == [(word, *args)]


KEYS = [b"s", b"h", b"z", b"l", b"set", b"gone", b"missing", b"hll"]
VALUES = [b"s", "h", b"z", "l", "set", b"f", "a", 1, -2, 0, 3, "-inf", "(1", "[a", "-", "+",
          b"\xff", 2.5, None, True, bytearray(b"s"), "\udcff"]


def setup(engine: Engine) -> None:
    engine.set("s", "hello")
    engine.hset("h", mapping={"f": "v", "a": "1"})
    engine.zadd("z", {"a": 1, "b": 2, "c": 2})
    engine.rpush("l", "x", "y", "z")
    engine.sadd("set", "a", "f")
    engine.pfadd("hll", "a", "b")
    engine.set("gone", "x", px=600_000)  # a key with a deadline (never reached here)


def outcome(fn: Any) -> tuple[Any, ...]:
    try:
        reply = fn()
    except Exception as exc:  # the class and text are what is compared
        return ("exc", type(exc), str(exc))
    if type(reply) is int and reply > 1000:  # a TTL in ms: the twins read the clock apart
        return ("ok", "a remaining time")
    return ("ok", reply)


def keyspace(engine: Engine) -> dict[bytes, Any]:
    """Every live key's type and content, read without decoding (engine.live_keys)."""
    out = {}
    for key in engine.live_keys():
        value = engine.lookup(key)
        content = list(value.items()) if hasattr(value, "items") and not isinstance(value, dict) \
            else value
        out[key] = (type(value).__name__, content, engine.pttl(key) > 0)
    return out


#: The rows the Engine binds a forwarding method for (ZSCORE and ZINCRBY have
#: their own front doors, proven in test_engine_fastpaths.py).
ENGINE_ROWS = [row for row in FORWARDED if getattr(Engine, row[0]).__name__ == row[0]]


def test_the_engine_forwards_all_rows_but_its_front_doors() -> None:
    assert {row[0] for row in FORWARDED} - {row[0] for row in ENGINE_ROWS} == {"zscore", "zincrby"}


@pytest.mark.parametrize("decode", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_forwarding_methods_answer_as_redis_py_methods(seed: int, decode: bool) -> None:
    rng = random.Random(seed)
    fast, slow = Engine(decode_responses=decode), Engine(decode_responses=decode)
    setup(fast)
    setup(slow)
    for _ in range(3000):
        name, _word, fixed, rest = rng.choice(ENGINE_ROWS)
        count = fixed + (rng.randrange(0, 4) if rest else 0) + rng.choice([0, 0, 0, 0, 1, -1])
        args = [rng.choice(KEYS + VALUES) for _ in range(max(0, count))]
        kwargs = {}
        if rng.random() < 0.05 and fixed:
            kwargs["name"] = args.pop(0) if args else b"s"
        got = outcome(lambda: getattr(fast, name)(*args, **kwargs))
        want = outcome(lambda: getattr(CoreCommands, name)(slow, *args, **kwargs))
        assert got == want or repr(got) == repr(want), (name, args, kwargs)
    assert keyspace(fast) == keyspace(slow)


@pytest.mark.parametrize("transaction", [False, True])
@pytest.mark.parametrize("seed", range(3))
def test_queueing_methods_queue_as_redis_py_methods(seed: int, transaction: bool) -> None:
    """A Pipeline's queueing methods queue what redis-py's methods queue: the
    same batches, run on twin engines, answer alike (errors included)."""
    rng = random.Random(seed)
    fast, slow = Engine(), Engine()
    setup(fast)
    setup(slow)
    for _ in range(200):
        fast_pipe, slow_pipe = fast.pipeline(transaction), slow.pipeline(transaction)
        for _ in range(rng.randrange(1, 8)):
            name, _word, fixed, rest = rng.choice(FORWARDED)
            count = fixed + (rng.randrange(0, 3) if rest else 0) + rng.choice([0, 0, 0, 1, -1])
            args = [rng.choice(KEYS + VALUES) for _ in range(max(0, count))]
            queued = outcome(lambda: getattr(fast_pipe, name)(*args) is fast_pipe)
            assert queued == outcome(lambda: getattr(CoreCommands, name)(slow_pipe, *args)
                                     is slow_pipe)
        got = outcome(lambda: [outcome(lambda: x) for x in fast_pipe.execute(raise_on_error=False)])
        want = outcome(lambda: [outcome(lambda: x) for x in slow_pipe.execute(raise_on_error=False)])
        assert repr(got) == repr(want)
    assert keyspace(fast) == keyspace(slow)
