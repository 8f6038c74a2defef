"""Fixtures of the domain tests: every test runs on the three backends.

- ``client``: a sync client, parametrised over ``engine`` (fastrank.Engine),
  ``redis`` (the real Redis of tests/conftest.py) and ``cluster`` (its real
  3-master Redis Cluster), each empty.
- ``other_client``: another client object on the same data as ``client``
  (a second process's view; the Engine is its own data, so itself);
- ``async_client``: a factory of the matching asyncio client
  (fastrank.asyncio.Engine, redis.asyncio.Redis, redis.asyncio.cluster.RedisCluster),
  to be called inside the test's event loop; the servers are flushed first.
"""
from __future__ import annotations

from typing import Any, Callable, Iterator

import pytest

BACKENDS = ["engine", "redis", "cluster"]


@pytest.fixture(params=BACKENDS)
def client(request: pytest.FixtureRequest) -> Iterator[Any]:
    if request.param == "engine":
        from fastrank import Engine

        yield Engine()
    elif request.param == "redis":
        yield request.getfixturevalue("redis_client")
    else:
        yield request.getfixturevalue("cluster_client")


@pytest.fixture(params=BACKENDS)
def async_client(request: pytest.FixtureRequest) -> Callable[[], Any]:
    if request.param == "engine":
        import fastrank.asyncio

        return lambda: fastrank.asyncio.Engine()
    if request.param == "redis":
        port = request.getfixturevalue("redis_client").connection_pool.connection_kwargs["port"]
        import redis.asyncio

        return lambda: redis.asyncio.Redis(host="127.0.0.1", port=port)
    ports = request.getfixturevalue("redis_cluster")
    request.getfixturevalue("cluster_client")  # flushes the cluster
    from redis.asyncio.cluster import RedisCluster

    return lambda: RedisCluster(host="127.0.0.1", port=ports[0])



@pytest.fixture
def other_client(client: Any) -> Any:
    import redis
    import redis.cluster

    if isinstance(client, redis.cluster.RedisCluster):
        node = client.get_default_node()
        return redis.cluster.RedisCluster(host=node.host, port=node.port)
    if isinstance(client, redis.Redis):
        kwargs = client.connection_pool.connection_kwargs
        return redis.Redis(host=kwargs.get("host", "127.0.0.1"), port=kwargs["port"])
    return client
