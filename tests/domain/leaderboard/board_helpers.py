"""Helpers of the leaderboard tests (a module name unique in tests/, so it imports from any run)."""
from __future__ import annotations

from typing import Any


def keyspace(client: Any) -> dict:
    """Every key with its type and content: compared before and after a rejected call."""
    from redis.cluster import RedisCluster

    state = {}
    found = client.keys("*", target_nodes=RedisCluster.PRIMARIES) if isinstance(client, RedisCluster) \
        else client.keys("*")
    for key in found:
        kind = client.type(key)
        kind = kind.decode() if isinstance(kind, bytes) else kind
        if kind == "zset":
            value: Any = client.zrange(key, 0, -1, withscores=True)
        elif kind == "hash":
            value = client.hgetall(key)
        else:
            value = client.dump(key)
        state[key] = (kind, value, client.ttl(key))
    return state
