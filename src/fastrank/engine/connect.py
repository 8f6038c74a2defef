"""connect(url): one entry point for the three places fastrank runs.

- ``memory://``                      → a new in-process :class:`fastrank.Engine`
- ``redis://``, ``rediss://``, ``unix://`` → ``redis.Redis.from_url(url)``
- ``redis+cluster://host:port``      → ``redis.cluster.RedisCluster(host, port)``

Keyword arguments go to the client's constructor (``decode_responses``...).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Union
from urllib.parse import urlparse

if TYPE_CHECKING:
    import redis
    import redis.cluster

    from fastrank.engine import Engine

#: What :func:`connect` returns: one of the three redis-py compatible clients.
Client = Union["Engine", "redis.Redis", "redis.cluster.RedisCluster"]


def connect(url: str = "memory://", **kwargs: Any) -> Client:
    """A redis-py compatible client for ``url`` (see the module docstring)."""
    scheme = urlparse(url).scheme.lower()
    if scheme == "memory":
        from fastrank.engine import Engine

        return Engine(**kwargs)
    if scheme in ("redis", "rediss", "unix"):
        import redis

        return redis.Redis.from_url(url, **kwargs)
    if scheme == "redis+cluster":
        from redis.cluster import RedisCluster

        parsed = urlparse(url)
        return RedisCluster(host=parsed.hostname or "localhost", port=parsed.port or 6379,
                            **kwargs)
    raise ValueError(f"unsupported URL scheme {scheme!r} (memory, redis, rediss, unix, "
                     "redis+cluster)")
