"""MEMORY USAGE (commands/memory.py): same shape as Redis 7.0 (an int for a
present key, None for a missing one) and the same errors; the byte counts
themselves are this process's (docs/compatibility.md), so only their type is
compared."""
from __future__ import annotations

import pytest

from differential import Outcome, Pair


def same_shape(real: Outcome, eng: Outcome) -> bool:
    if real.error is not None or eng.error is not None:
        return (type(real.error), str(real.error)) == (type(eng.error), str(eng.error))
    return type(real.value) is type(eng.value) and (real.value is None) == (eng.value is None)


@pytest.mark.parametrize("args", [
    ("MEMORY USAGE", "s"), ("MEMORY USAGE", "z"), ("MEMORY USAGE", "h"),
    ("MEMORY USAGE", "missing"), ("MEMORY USAGE", "z", "SAMPLES", 0),
    ("MEMORY USAGE", "z", "samples", 3), ("MEMORY USAGE",), ("MEMORY USAGE", "z", "SAMPLES"),
    ("MEMORY USAGE", "z", "SAMPLES", "x"), ("MEMORY USAGE", "z", "SAMPLES", -1),
    ("MEMORY USAGE", "z", "FOO", 1), ("MEMORY FOO",), ("MEMORY",),
])
def test_memory_usage_shapes_and_errors(pair: Pair, args: tuple) -> None:
    pair.set("s", "v")
    pair.zadd("z", {"a": 1, "b": 2})
    pair.hset("h", "f", "v")
    pair.apply(f"execute_command{args}", lambda c: c.execute_command(*args), compare=same_shape,
               reraise=False)
    pair.apply("memory_usage(z)", lambda c: c.memory_usage("z", samples=5), compare=same_shape)
