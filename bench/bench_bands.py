"""RangePartitionedLeaderboard against ShardedLeaderboard (hash shards) and one
Leaderboard, on a skewed (Pareto/Zipf-like) score distribution.

    python bench/bench_bands.py [--players 1000000] [--ops 2000] [--rounds 3] [--backends engine,redis,cluster]

Loads the same players into the three boards (submit_many in batches of
1,000) on the in-process Engine, a local Redis and a local 3-master Redis
Cluster (started here on loopback). Points are ``int(100 * Pareto(1.16))``
capped at the board's 2**20 - 1: about 93% of the players lie below 1000 (the
long tail), 6% in [1000, 5000), 1% at 5000 or more (the elite); the banded
board uses ``bounds=[1000, 5000]``, the sharded board 3 shards (as many keys).

Times ``rank`` (ordinal and competition) of random players, of elite players
only, ``top(10)``, ``around(r=5)`` and ``submit``, each board in turn,
``--rounds`` times (the rows give the median and the range, µs per call), and
counts the load each key takes: members per band / shard, and how many of
the timed operations' players each one holds (a hash shard gets a third of
every workload; a band gets what its players do).
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List, Tuple

from redis.cluster import RedisCluster

import fastrank
from fastrank import Leaderboard, RangePartitionedLeaderboard, ShardedLeaderboard
from fastrank.leaderboard.bands import band_at
from fastrank.testing import free_port, start_cluster, start_redis

T0 = 1_790_000_000
BOUNDS = [1000, 5000]
CAP = 2 ** 20 - 1


def scores(players: int) -> List[int]:
    rnd = random.Random(1)
    return [min(CAP, int(100 * rnd.paretovariate(1.16))) for _ in range(players)]


def load(board: Any, points: List[int], batch: int = 1000) -> float:
    t = time.perf_counter()
    for start in range(0, len(points), batch):
        board.submit_many({f"player:{i}": points[i] for i in range(start, min(len(points), start + batch))}, at=T0)
    return time.perf_counter() - t


def per_call(fn: Callable[[int], Any], picks: List[int]) -> float:
    t = time.perf_counter()
    for i in picks:
        fn(i)
    return (time.perf_counter() - t) / len(picks) * 1e6


def boards_on(client: Any, label: str, approximate: bool) -> Dict[str, Any]:
    boards = {"Leaderboard": Leaderboard(client, f"one{label}"),
              "Sharded(3)": ShardedLeaderboard(client, f"hash{label}", shards=3),
              "Bands[1000,5000]": RangePartitionedLeaderboard(client, f"band{label}", bounds=BOUNDS)}
    if approximate:
        boards["Bands approximate"] = RangePartitionedLeaderboard(client, f"approx{label}", bounds=BOUNDS,
                                                                  approximate=True)
    return boards


def measure(client: Any, points: List[int], ops: int, rounds: int, label: str,
            approximate: bool = False) -> Dict[str, Any]:
    boards = boards_on(client, label, approximate)
    loads = {name: load(board, points) for name, board in boards.items()}
    rnd = random.Random(2)
    anyone = [rnd.randrange(len(points)) for _ in range(ops)]
    elite_ids = [i for i, p in enumerate(points) if p >= BOUNDS[-1]]
    elite = [rnd.choice(elite_ids) for _ in range(ops)]
    workloads: Dict[str, Tuple[Callable[[Any], Callable[[int], Any]], List[int]]] = {
        "rank (random player)": (lambda b: lambda i: b.rank(f"player:{i}"), anyone),
        "rank competition (random)": (lambda b: lambda i: b.rank(f"player:{i}", ranking="competition"), anyone),
        "rank (elite player)": (lambda b: lambda i: b.rank(f"player:{i}"), elite),
        "top(10)": (lambda b: lambda i: b.top(10), anyone),
        "around(5)": (lambda b: lambda i: b.around(f"player:{i}", 5), anyone),
        "submit +0": (lambda b: lambda i: b.submit(f"player:{i}", 0, at=T0 + 1), anyone),
    }
    times: Dict[Tuple[str, str], List[float]] = {}
    for _ in range(rounds):
        for op, (make, picks) in workloads.items():
            for name, board in boards.items():  # alternating boards inside each round
                times.setdefault((op, name), []).append(per_call(make(board), picks))
    bands = boards["Bands[1000,5000]"]
    sharded = boards["Sharded(3)"]
    load_rows = {
        "band members": bands.band_sizes(),
        "band ops": _spread([band_at(BOUNDS, points[i]) for i in anyone], len(BOUNDS) + 1),
        "band ops (elite workload)": _spread([band_at(BOUNDS, points[i]) for i in elite], len(BOUNDS) + 1),
        "shard members": [int(client.zcard(b.keys()[0])) for b in sharded.boards],
        "shard ops": _spread([sharded.shard_of(f"player:{i}") for i in anyone], 3),
    }
    return {"loads": loads, "times": times, "spread": load_rows}


def _spread(where: List[int], keys: int) -> List[int]:
    counts = [0] * keys
    for k in where:
        counts[k] += 1
    return counts


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, default=1_000_000)
    ap.add_argument("--ops", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--backends", default="engine,redis,cluster")
    ap.add_argument("--approximate", action="store_true",
                    help="add a fourth board, the banded one with approximate=True (its long tail's ranks estimated)")
    args = ap.parse_args(argv)
    wanted = args.backends.split(",")
    points = scores(args.players)
    results: Dict[str, Dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "single"))
        single = start_redis(free_port(), os.path.join(root, "single")) if "redis" in wanted else None
        cluster = start_cluster(os.path.join(root, "cluster")) if "cluster" in wanted else []
        try:
            if "engine" in wanted:
                results["Engine"] = measure(fastrank.Engine(), points, args.ops, args.rounds, "e", args.approximate)
            if single is not None:
                results["Redis"] = measure(single.client(), points, args.ops, args.rounds, "r", args.approximate)
            if cluster:
                rc = RedisCluster(host="127.0.0.1", port=cluster[0].port)
                results["Cluster (3 masters)"] = measure(rc, points, args.ops, args.rounds, "c", args.approximate)
                rc.close()
        finally:
            if single is not None:
                single.stop()
            for n in cluster:
                n.stop()
    print(f"fastrank {fastrank.__version__}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; "
          f"{args.players:,} players, {args.ops:,} calls per row, {args.rounds} rounds; "
          f"µs per call, median [min-max] of the rounds\n")
    names = list(dict.fromkeys(name for result in results.values() for _, name in result["times"]))
    print("| backend | operation | " + " | ".join(names) + " | bands / sharded |")
    print("|---|---|" + "---:|" * (len(names) + 1))
    for backend, result in results.items():
        for op in dict.fromkeys(op for op, _ in result["times"]):
            cells, medians = [], {}
            for name in names:
                runs = result["times"][(op, name)]
                medians[name] = statistics.median(runs)
                cells.append(f"{medians[name]:,.1f} [{min(runs):,.0f}-{max(runs):,.0f}]")
            ratio = medians["Bands[1000,5000]"] / medians["Sharded(3)"]
            print(f"| {backend} | {op} | " + " | ".join(cells) + f" | {ratio:.2f}x |")
    print("\n| backend | load (s): " + " / ".join(names) + " |\n|---|---|")
    for backend, result in results.items():
        print(f"| {backend} | " + " / ".join(f"{result['loads'][n]:.1f}" for n in names) + " |")
    print("\nLoad per key (lowest band first; shards in order):\n")
    print("| backend | what | per key |\n|---|---|---|")
    for backend, result in results.items():
        for what, counts in result["spread"].items():
            total = sum(counts) or 1
            print(f"| {backend} | {what} | " + ", ".join(f"{c:,} ({100 * c / total:.1f}%)" for c in counts) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
