"""The redis-py methods the Engine and its Pipeline answer without redis-py's body.

Data only: the Engine (``engine.py``) binds a compiled forwarding method for
each row where it has no front door of its own, and the Pipeline
(``pipeline.py``) one that queues the command.
"""
from __future__ import annotations

#: redis-py methods whose body only sends their parameters, in order, as the
#: arguments of one command: (method, command, fixed parameters, any more).
#: The Engine binds a compiled method for each (``forwarding_method``; ZSCORE
#: and ZINCRBY have their own front doors) that enters the dispatch path
#: without the detour through redis-py's method, and the Pipeline one that
#: queues the command (``queueing_method``). tests/unit/engine/test_engine_forwarding.py
#: checks every row against redis-py.
FORWARDED: tuple[tuple[str, str, int, bool], ...] = (
    ("get", "GET", 1, False), ("strlen", "STRLEN", 1, False),
    ("getrange", "GETRANGE", 3, False), ("getbit", "GETBIT", 2, False),
    ("append", "APPEND", 2, False),
    ("exists", "EXISTS", 0, True), ("delete", "DEL", 0, True), ("type", "TYPE", 1, False),
    ("ttl", "TTL", 1, False), ("pttl", "PTTL", 1, False), ("persist", "PERSIST", 1, False),
    ("hget", "HGET", 2, False), ("hexists", "HEXISTS", 2, False), ("hlen", "HLEN", 1, False),
    ("hgetall", "HGETALL", 1, False), ("hdel", "HDEL", 1, True),
    ("sismember", "SISMEMBER", 2, False), ("scard", "SCARD", 1, False),
    ("smembers", "SMEMBERS", 1, False), ("sadd", "SADD", 1, True), ("srem", "SREM", 1, True),
    ("zcard", "ZCARD", 1, False), ("zrem", "ZREM", 1, True),
    ("llen", "LLEN", 1, False), ("lindex", "LINDEX", 2, False), ("lrange", "LRANGE", 3, False),
    ("lpush", "LPUSH", 1, True), ("rpush", "RPUSH", 1, True),
    ("pfadd", "PFADD", 1, True), ("pfcount", "PFCOUNT", 0, True),
    ("getset", "GETSET", 2, False), ("setnx", "SETNX", 2, False),
    ("hsetnx", "HSETNX", 3, False), ("smove", "SMOVE", 3, False),
    ("zscore", "ZSCORE", 2, False), ("zincrby", "ZINCRBY", 3, False),
    ("zremrangebyrank", "ZREMRANGEBYRANK", 3, False),
    ("lrem", "LREM", 3, False), ("lset", "LSET", 3, False), ("ltrim", "LTRIM", 3, False),
    ("rpoplpush", "RPOPLPUSH", 2, False),
)
