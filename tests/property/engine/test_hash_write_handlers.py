"""HINCRBY's and HSET's compiled handlers and front doors
(engine/native/hash_writes.pxi) answer as the Python rules they defer to
(commands/hashes.hincrby and hset): random stored values, increments, key
states and field/value lists, on twin Engines; reply or error and the key
afterwards."""
from __future__ import annotations

from typing import Any, Callable

from hypothesis import given, settings
from hypothesis import strategies as st
from redis.commands.core import CoreCommands

from fastrank import Engine
from fastrank._core import hincrby_command, hset_command
from fastrank.engine.commands import CommandError
from fastrank.engine.commands.hashes import hincrby, hset

pieces = st.sampled_from(["0", "1", "7", "9", "-", "+", " ", ".", "00", "x",
                          "9223372036854775807", "9223372036854775808", "5"])
int_texts = st.one_of(st.lists(pieces, min_size=0, max_size=4).map("".join),
                      st.integers(-(2**64), 2**64).map(str))
states = st.sampled_from(["absent", "hash", "string", "ttl", "stale"])
fields = st.sampled_from([b"f", b"g", b"", b"n\x00"])


def prepare(engine: Engine, state: str, stored: str) -> None:
    if state == "hash":
        engine.hset("k", mapping={"f": stored, "other": "1"})
    elif state == "string":
        engine.set("k", "v")
    elif state == "ttl":
        engine.hset("k", mapping={"f": stored})
        engine.expire("k", 100)
    elif state == "stale":  # a deadline that has passed: the key is gone
        engine.hset("k", mapping={"f": stored})
        engine.pexpireat("k", 1)


def outcome(engine: Engine, fn: Callable[[Engine, list[bytes]], Any], argv: list[bytes]) -> Any:
    with engine._lock:
        try:
            reply = ("ok", fn(engine, argv))
        except CommandError as exc:
            reply = ("error", str(exc))
    kind = engine.type("k")
    return reply, kind, engine.hgetall("k") if kind == b"hash" else engine.get("k") \
        if kind == b"string" else None, engine.ttl("k") > 0


def assert_twins_agree(state: str, stored: str, argv: list[bytes],
                       handler: Callable[[Engine, list[bytes]], Any],
                       rule: Callable[[Engine, list[bytes]], Any]) -> None:
    """The compiled handler (whole argv) and the Python rule (args after the
    word), each on its own Engine prepared alike, give the same outcome."""
    compiled, python = Engine(), Engine()
    prepare(compiled, state, stored)
    prepare(python, state, stored)
    assert outcome(compiled, handler, argv) == outcome(python, lambda db, args: rule(db, args[1:]), argv)


@given(state=states, stored=int_texts, increment=int_texts, field=fields)
@settings(max_examples=500, deadline=None)
def test_hincrby_handler_answers_as_the_python_rule(state: str, stored: str, increment: str,
                                                   field: bytes) -> None:
    assert_twins_agree(state, stored, [b"HINCRBY", b"k", field, increment.encode()], hincrby_command, hincrby)


@given(state=states, stored=int_texts,
       words=st.lists(st.sampled_from([b"f", b"g", b"", b"v", b"1"]), min_size=2, max_size=7))
@settings(max_examples=300, deadline=None)
def test_hset_handler_answers_as_the_python_rule(state: str, stored: str,
                                                 words: list[bytes]) -> None:
    assert_twins_agree(state, stored, [b"HSET", b"k"] + words, hset_command, hset)


def called(engine: Engine, fn: Callable[[], Any]) -> Any:
    try:
        reply = ("ok", fn())
    except Exception as exc:  # noqa: BLE001 - the outcome compared, class and text
        reply = (type(exc).__name__, str(exc))
    kind = engine.type("k")
    return reply, kind, engine.hgetall("k") if kind == b"hash" else None, engine.ttl("k") > 0


arguments = st.one_of(st.sampled_from(["f", b"f", "g", 7, -1, 2**63, True, 1.5, None, "\ud800",
                                       "é"]), st.integers(-(2**64), 2**64))


@given(state=states, stored=int_texts, field=arguments, amount=arguments)
@settings(max_examples=500, deadline=None)
def test_hincrby_front_door_answers_as_redis_py(state: str, stored: str, field: Any,
                                               amount: Any) -> None:
    compiled, generic = Engine(), Engine()
    prepare(compiled, state, stored)
    prepare(generic, state, stored)
    got = called(compiled, lambda: compiled.hincrby("k", field, amount))
    want = called(generic, lambda: CoreCommands.hincrby(generic, "k", field, amount))
    assert got == want


@given(state=states, stored=int_texts, field=st.one_of(st.none(), arguments), value=arguments,
       mapping=st.one_of(st.none(), st.dictionaries(arguments, arguments, max_size=4)))
@settings(max_examples=400, deadline=None)
def test_hset_front_door_answers_as_redis_py(state: str, stored: str, field: Any, value: Any,
                                            mapping: Any) -> None:
    compiled, generic = Engine(), Engine()
    prepare(compiled, state, stored)
    prepare(generic, state, stored)
    got = called(compiled, lambda: compiled.hset("k", field, value, mapping))
    want = called(generic, lambda: CoreCommands.hset(generic, "k", field, value, mapping))
    assert got == want
