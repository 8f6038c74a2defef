"""MEMORY USAGE (commands/memory.py) on the Engine: a key's footprint by the
Engine's own accounting follows the value (a trimmed board gives memory back)
and exists for every type. Only the reply shapes can match Redis's (the byte
counts are this process's, docs/compatibility.md); tests/compat/commands/
test_diff_memory.py compares those against the server.
"""
from __future__ import annotations

import pytest

from fastrank import Engine


def test_engine_memory_usage_follows_the_board(engine: Engine) -> None:
    engine.zadd("board", {f"p{i}": i for i in range(50_000)})
    full = engine.memory_usage("board")
    assert isinstance(full, int) and full > 50_000 * 40
    engine.zremrangebyrank("board", 0, -1001)
    trimmed = engine.memory_usage("board")
    assert isinstance(trimmed, int) and trimmed < full / 10
    assert engine.memory_usage("missing") is None


@pytest.mark.parametrize("value", ["string", "hash", "set", "cms", "topk", "hll"])
def test_engine_memory_usage_of_every_type(engine: Engine, value: str) -> None:
    if value == "string":
        engine.set("k", "v" * 1000)
    elif value == "hash":
        engine.hset("k", mapping={f"f{i}": "x" * 10 for i in range(100)})
    elif value == "set":
        engine.sadd("k", *[f"m{i}" for i in range(100)])
    elif value == "cms":
        engine.cms().initbydim("k", 1000, 5)
    elif value == "topk":
        engine.topk().reserve("k", 10, 100, 5, 0.9)
    else:
        engine.pfadd("k", "a", "b")
    usage = engine.memory_usage("k")
    assert isinstance(usage, int) and usage > 0
    assert engine.execute_command("MEMORY", "USAGE", "k") == usage
    assert engine.memory_usage("k", samples=0) >= 1
