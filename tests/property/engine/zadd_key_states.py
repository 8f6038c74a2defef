"""The key states the ZADD fast-path tests draw from, and how they read the
key afterwards (shared by test_zadd_front_door.py and test_zadd_handler.py)."""
from __future__ import annotations

from typing import Any

from fastrank import Engine


def prepare(engine: Engine, state: str) -> None:
    """Key "k" as ``state``: absent, skiplist, listpack, string, ttl or stale."""
    if state in ("skiplist", "ttl", "stale"):
        engine.zadd("k", {f"x{i}": i for i in range(200)})
    if state == "listpack":
        engine.zadd("k", {"x1": 1, "x2": 2})
    elif state == "string":
        engine.set("k", "v")
    elif state == "ttl":
        engine.expire("k", 100)
    elif state == "stale":  # a deadline that has passed: the key is gone
        engine.pexpireat("k", 1)


def key_after(engine: Engine) -> Any:
    """Key "k" afterwards: its type, its content (scores bit for bit), whether it has a TTL."""
    kind = engine.type("k")
    content: Any = None
    if kind == b"zset":
        pairs: Any = engine.zrange("k", 0, -1, withscores=True)
        content = [(m, repr(s)) for m, s in pairs]
    elif kind == b"string":
        content = engine.get("k")
    return kind, content, engine.ttl("k") > 0
