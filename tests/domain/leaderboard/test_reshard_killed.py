"""A reshard killed (SIGKILL) at a random point, then run again by another
process, ends exact (#24): on Redis and the Cluster, where a second process
shares the data (the Engine lives in its one process: its interrupted
reshards are tested with exceptions in test_board_descriptor.py)."""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pytest

from fastrank import ShardedLeaderboard

CHILD = r"""
import sys, time
import redis, redis.cluster
from fastrank import ShardedLeaderboard
kind, port = sys.argv[1], int(sys.argv[2])
client = (redis.cluster.RedisCluster(host="127.0.0.1", port=port) if kind == "cluster"
          else redis.Redis(host="127.0.0.1", port=port))
board = ShardedLeaderboard(client, "world")
print("ready", flush=True)
board.reshard(int(sys.argv[3]), batch=4, progress=lambda moved, total: time.sleep(0.02))
print("done", flush=True)
"""


@pytest.mark.parametrize("kind", ["redis", "cluster"])
@pytest.mark.parametrize("seed", range(3))
def test_a_killed_reshard_run_again_ends_exact(request, kind, seed):
    client = request.getfixturevalue("redis_client" if kind == "redis" else "cluster_client")
    port = (client.connection_pool.connection_kwargs["port"] if kind == "redis"
            else request.getfixturevalue("redis_cluster")[0])
    board = ShardedLeaderboard(client, "world", shards=3, season="s1", ranking="dense")
    for i in range(60):
        board.submit(f"p{i:02d}", i % 9 + 1, at=1_000 + i)
        if i % 5 == 0:
            board.set_info(f"p{i:02d}", {"i": i})
    board.rollover("s2")
    for i in range(40):
        board.submit(f"q{i:02d}", i % 6 + 1, at=2_000 + i)
    expected = [(e.rank, e.player, e.points) for e in board.top(100)]
    past = board.standings("s1", 100, with_info=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen([sys.executable, "-c", CHILD, kind, str(port), "5"], stdout=subprocess.PIPE, env=env)
    assert child.stdout is not None and child.stdout.readline().strip() == b"ready"
    time.sleep(random.Random(seed).uniform(0.005, 0.15))  # inside the reshard (its batches wait 20 ms)
    child.send_signal(signal.SIGKILL)
    child.wait()
    again = ShardedLeaderboard(client, "world")
    again.reshard(4, batch=7)                          # finished by another process, to another count
    assert again.shards == 4
    assert [(e.rank, e.player, e.points) for e in again.top(100)] == expected
    assert again.standings("s1", 100, with_info=True) == past
    assert again.submit("q01", 1) == 3                 # writable again
    assert [(e.rank, e.player, e.points) for e in board.top(3)] == [
        (e.rank, e.player, e.points) for e in again.top(3)]
