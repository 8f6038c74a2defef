"""Engine.zadd's compiled front door (engine/native/zadd_front_door.pxi) answers as
the Python method it defers to (Engine._zadd_general): random small mappings
(members and scores of every kind, -0.0, NaN, infinities, ints beyond
int64), flags and key states, on twin Engines; reply or error, and the key
afterwards with its scores compared bit for bit."""
from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from fastrank import Engine
from zadd_key_states import key_after, prepare

# Half the draws are the front door's case (a skip list, no flags, plain
# pairs); the rest mix in everything it must decline.
states = st.one_of(st.just("skiplist"),
                   st.sampled_from(["absent", "skiplist", "listpack", "string", "ttl", "stale"]))
plain_members = st.sampled_from([b"x1", "x1", "x2", b"new", "new", 7, -3, "é", b"", "m" * 70])
plain_scores = st.one_of(st.floats(allow_nan=False, allow_infinity=False),
                         st.integers(-(2**63), 2**63 - 1), st.sampled_from([0.0, -0.0, 1.0, 2]))
members = st.one_of(plain_members, st.sampled_from([2**64, "\ud800", True, 1.5]))
scores = st.one_of(plain_scores, st.floats(),
                   st.sampled_from([2**63, 10**400, True, "3", float("nan"), float("-inf")]),
                   st.integers(-(2**70), 2**70))
mappings = st.one_of(st.dictionaries(plain_members, plain_scores, max_size=18),
                     st.dictionaries(members, scores, max_size=18))
flags = st.one_of(st.just({}), st.sampled_from([{"nx": True}, {"xx": True}, {"ch": True},
                                                 {"gt": True}, {"incr": True}, {"nx": 0}]))


def outcome(engine: Engine, fn: Any) -> Any:
    try:
        reply = ("ok", repr(fn()))
    except Exception as exc:  # noqa: BLE001 - the outcome compared, class and text
        reply = (type(exc).__name__, str(exc))
    return (reply, *key_after(engine))


@given(state=states, mapping=mappings, options=flags)
@settings(max_examples=600, deadline=None)
def test_front_door_answers_as_the_python_method(state: str, mapping: dict[Any, Any],
                                                 options: dict[str, Any]) -> None:
    compiled, python = Engine(), Engine()
    prepare(compiled, state)
    prepare(python, state)
    got = outcome(compiled, lambda: compiled.zadd("k", mapping, **options))
    want = outcome(python, lambda: python._zadd_general("k", mapping, **options))
    assert got == want
