"""connect(url): one entry point for the three places fastrank runs.

- ``memory://``                      → a new in-process :class:`fastrank.Engine`
- ``redis://``, ``rediss://``, ``unix://`` → ``redis.Redis.from_url(url)``
- ``redis+cluster://host:port``      → ``redis.cluster.RedisCluster(host, port)``

Keyword arguments go to the client's constructor (``decode_responses``...).
"""
from urllib.parse import urlparse


def connect(url: str = "memory://", **kwargs):
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
