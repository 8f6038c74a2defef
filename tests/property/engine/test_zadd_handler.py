"""ZADD's compiled handler (engine/native/zadd_handler.pxi) answers as the Python rule
it defers to (commands/sortedset.zadd): random argument lists (score texts of
every form, flag words, odd counts, up to 20 pairs) and key states, on twin
Engines; reply or error, and the key afterwards with its scores compared bit
for bit."""
from __future__ import annotations

from typing import Any, Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from fastrank import Engine
from zadd_key_states import key_after, prepare
from fastrank._core import zadd_command
from fastrank.engine.commands import CommandError
from fastrank.engine.commands.sortedset import zadd

pieces = st.sampled_from(["0", "1", "7", "-", ".", "e", "+", " ", "inf", "nan", "00", "5",
                          "12345678901234567890"])
score_texts = st.one_of(st.lists(pieces, min_size=1, max_size=4).map("".join),
                        st.floats().map(repr), st.integers(-(2**70), 2**70).map(str),
                        st.sampled_from(["-0", "-0.0", "NX", "xx", "CH", "INCR", "GT", "lt"]))
members = st.sampled_from(["x1", "x2", "new", "", "m" * 70, "n\x00"])
plain_scores = st.one_of(st.integers(-(2**70), 2**70).map(str),
                         st.floats(allow_nan=False, allow_infinity=False).map(
                             lambda x: f"{x:.6f}"),
                         st.sampled_from(["-0", "-0.0", "0", "1.5", "2"]))
# Half the lists are the handler's case (plain decimal scores only).
pairs = st.one_of(st.lists(st.tuples(plain_scores, members), min_size=1, max_size=16),
                  st.lists(st.tuples(score_texts, members), min_size=1, max_size=20))
# Half the draws are the handler's case (a skip list without TTL).
states = st.one_of(st.just("skiplist"),
                   st.sampled_from(["absent", "listpack", "string", "ttl", "stale"]))


def outcome(engine: Engine, fn: Callable[[Engine, list[bytes]], Any], argv: list[bytes]) -> Any:
    with engine._lock:
        try:
            reply = ("ok", repr(fn(engine, argv)))
        except CommandError as exc:
            reply = ("error", str(exc))
    return (reply, *key_after(engine))


@given(state=states, words=pairs, odd=st.sampled_from([False, False, False, True]))
@settings(max_examples=600, deadline=None)
def test_compiled_handler_answers_as_the_python_rule(state: str, words: list[tuple[str, str]],
                                                     odd: bool) -> None:
    compiled, python = Engine(), Engine()
    prepare(compiled, state)
    prepare(python, state)
    argv = [b"ZADD", b"k"] + [w.encode() for pair in words for w in pair]
    if odd:
        argv.pop()
    if len(argv) < 4:
        argv.append(b"1")
    got = outcome(compiled, zadd_command, argv)
    want = outcome(python, lambda db, args: zadd(db, args[1:]), argv)
    assert got == want
