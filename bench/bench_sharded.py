"""ShardedLeaderboard(8) against one Leaderboard: the cost of top(10), rank and submit.

    python bench/bench_sharded.py [--players 1000000] [--ops 2000]

Loads the same players into both boards (submit_many in batches) on the
in-process Engine, a local Redis and a local 3-master Redis Cluster (started
here on loopback), then times each operation on random players and prints
microseconds per call and the sharded/unsharded ratio.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List, Tuple

from redis.cluster import RedisCluster

import fastrank
from fastrank import Leaderboard, ShardedLeaderboard
from fastrank.testing import free_port, start_cluster, start_redis

T0 = 1_790_000_000


def load(board: Any, players: int, batch: int = 5000) -> float:
    rnd = random.Random(1)
    t = time.perf_counter()
    for start in range(0, players, batch):
        board.submit_many({f"player:{i}": rnd.randrange(100_000) for i in range(start, min(players, start + batch))},
                          at=T0)
    return time.perf_counter() - t


def per_call(fn: Callable[[int], Any], ops: int) -> float:
    rnd = random.Random(2)
    args = [rnd.randrange(1 << 30) for _ in range(ops)]
    t = time.perf_counter()
    for a in args:
        fn(a)
    return (time.perf_counter() - t) / ops * 1e6


def measure(client: Any, players: int, ops: int, label: str) -> List[Tuple[str, str, float]]:
    rows = []
    for name, board in (("Leaderboard", Leaderboard(client, f"b{label}")),
                        ("ShardedLeaderboard(8)", ShardedLeaderboard(client, f"s{label}", shards=8))):
        load(board, players)
        ops_of: Dict[str, Callable[[int], Any]] = {
            "top(10)": lambda a: board.top(10),
            "rank": lambda a: board.rank(f"player:{a % players}"),
            "rank (competition)": lambda a: board.rank(f"player:{a % players}", ranking="competition"),
            "submit": lambda a: board.submit(f"player:{a % players}", 1, at=T0 + 1),
        }
        for op, fn in ops_of.items():
            rows.append((name, op, per_call(fn, ops)))
    return rows


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, default=1_000_000)
    ap.add_argument("--ops", type=int, default=2000)
    args = ap.parse_args(argv)
    results: Dict[str, List[Tuple[str, str, float]]] = {}
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "single"))
        single = start_redis(free_port(), os.path.join(root, "single"))
        cluster = start_cluster(os.path.join(root, "cluster"))
        try:
            results["Engine"] = measure(fastrank.Engine(), args.players, args.ops, "e")
            results["Redis"] = measure(single.client(), args.players, args.ops, "r")
            rc = RedisCluster(host="127.0.0.1", port=cluster[0].port)
            results["Cluster (3 masters)"] = measure(rc, args.players, args.ops, "c")
            rc.close()
        finally:
            single.stop()
            for n in cluster:
                n.stop()
    print(f"fastrank {fastrank.__version__}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; "
          f"{args.players:,} players, {args.ops:,} calls per row, µs per call\n")
    print("| backend | operation | Leaderboard | ShardedLeaderboard(8) | ratio |")
    print("|---|---|---:|---:|---:|")
    for backend, rows in results.items():
        one = {op: us for name, op, us in rows if name == "Leaderboard"}
        many = {op: us for name, op, us in rows if name != "Leaderboard"}
        for op in one:
            print(f"| {backend} | {op} | {one[op]:,.1f} | {many[op]:,.1f} | {many[op] / one[op]:.1f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
