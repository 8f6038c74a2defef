"""ZINCRBY's compiled handler (engine/native/zincrby_handler.pxi) answers as the Python
rule it defers to (commands/sortedset.zincrby): random increment texts, key
states and members, on twin Engines; reply or error and the key afterwards."""
from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fastrank import Engine
from fastrank.engine.commands import CommandError
from fastrank.engine.commands.sortedset import zincrby
from fastrank._core import zincrby_command

pieces = st.sampled_from(["0", "1", "7", "9", "-", ".", "e", "+", " ", "inf", "nan", "00",
                          "12345678901234567890", "5"])
increments = st.one_of(st.lists(pieces, min_size=0, max_size=5).map("".join),
                       st.floats(allow_nan=False).map(repr),
                       st.integers(-10 ** 20, 10 ** 20).map(str))
states = st.sampled_from(["absent", "skiplist", "listpack", "string", "ttl", "huge"])
members = st.sampled_from([b"a", b"m", b"", b"new\x00"])


def prepare(engine: Engine, state: str) -> None:
    if state == "skiplist":
        engine.zadd("k", {f"x{i}": i for i in range(200)} | {"a": 1.5})
    elif state == "listpack":
        engine.zadd("k", {"a": 2, "b": 3})
    elif state == "string":
        engine.set("k", "v")
    elif state == "ttl":
        engine.zadd("k", {f"x{i}": i for i in range(200)} | {"a": 1})
        engine.expire("k", 100)
    elif state == "huge":
        engine.zadd("k", {f"x{i}": i for i in range(200)} | {"a": 1.7976931348623157e308})


def outcome(engine: Engine, fn: Any, args: list[bytes]) -> Any:
    with engine._lock:
        try:
            reply = ("ok", fn(engine, args))
        except (CommandError, ValueError) as exc:
            reply = (type(exc).__name__, str(exc))
    return reply, engine.type("k"), engine.zrange("k", 0, -1, withscores=True) \
        if engine.type("k") == b"zset" else engine.get("k")


@given(state=states, increment=increments, member=members)
@settings(max_examples=400, deadline=None)
def test_compiled_handler_answers_as_the_python_rule(state: str, increment: str, member: bytes) -> None:
    compiled, python = Engine(), Engine()
    prepare(compiled, state)
    prepare(python, state)
    text = increment.encode()
    got = outcome(compiled, zincrby_command, [b"ZINCRBY", b"k", text, member])
    want = outcome(python, lambda db, argv: zincrby(db, argv[1:]), [b"ZINCRBY", b"k", text, member])
    assert got == want
