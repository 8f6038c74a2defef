"""fastrank.engine.script.Script is called through vectorcall (ScriptCall in
engine/native/script_front_door.pxi): every form of call answers as redis-py's own
``Script.__call__`` does on the same object, and subclasses keep working."""
from typing import Any, Dict, Tuple

import pytest
from redis.commands.core import Script as RedisScript

from fastrank import Engine
from fastrank.engine.script import Script

BODY = "return {KEYS[1], ARGV[1], ARGV[2], #KEYS, #ARGV}"

FORMS = [
    ((), {"keys": ["k"], "args": ["a", 1]}),
    ((), {"args": ["a", 1], "keys": ["k"]}),
    ((["k"], ["a", 1]), {}),
    ((["k"],), {"args": ("a", 2.5)}),
    ((("k",),), {}),
    ((), {}),
    ((), {"keys": None, "args": None, "client": None}),
    ((["k"], ["a"], None), {}),
    ((), {"keys": ["k", "j"], "args": [b"\x00b", "é"]}),
]

BAD_FORMS = [
    ((), {"key": ["k"]}),
    ((["k"],), {"keys": ["j"]}),
    ((["k"], ["a"], None, 4), {}),
    ((), {"keys": ["k"], "args": ["a"], "client": None, "more": 1}),
]


def outcome(fn: Any) -> Tuple[Any, ...]:
    try:
        return ("ok", fn())
    except Exception as exc:  # the class is the answer; texts name the function differently
        return ("exc", type(exc))


@pytest.mark.parametrize("form", FORMS + BAD_FORMS)
def test_every_form_of_call_answers_as_redis_py(form: Tuple[Tuple[Any, ...], Dict[str, Any]]) -> None:
    args, kwargs = form
    script = Engine().register_script(BODY)
    assert outcome(lambda: script(*args, **kwargs)) == \
        outcome(lambda: RedisScript.__call__(script, *args, **kwargs))


def test_the_client_argument_runs_the_script_there() -> None:
    first, second = Engine(), Engine()
    script = first.register_script("return redis.call('INCR', KEYS[1])")
    assert script(keys=["n"], client=second) == 1
    assert script(["n"], [], second) == 2
    assert (first.get("n"), second.get("n")) == (None, b"2")


def test_subclasses_are_called_alike_and_may_override_the_call() -> None:
    engine = Engine()

    class Plain(Script):
        pass

    class Counted(Script):
        calls = 0

        def __call__(self, keys: Any = None, args: Any = None, client: Any = None) -> Any:
            Counted.calls += 1
            return super().__call__(keys, args, client)

    assert Plain(engine, BODY)(keys=["k"], args=["a", "b"]) == [b"k", b"a", b"b", 1, 2]
    counted = Counted(engine, BODY)
    assert counted(keys=["k"], args=["a", "b"]) == [b"k", b"a", b"b", 1, 2]
    assert Counted.calls == 1
