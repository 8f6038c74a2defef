"""ShardedLeaderboard(3) with mass ties: rank, around(5) and submit with_rank,
this checkout's plans against a baseline sharded.py (an older commit's), side by side.

    git show <commit>:src/fastrank/leaderboard/sharded.py > /tmp/baseline_sharded.py
    python bench/bench_sharded_ties.py --baseline /tmp/baseline_sharded.py [--players 300000] [--values 10]
        [--ops 300] [--rounds 3] [--backends engine,redis]

Loads ``--players`` players on ``--values`` distinct points (tiebreak=None: each
value is one tie run of players/values members) into one sharded board, opens
it twice (the baseline's class and this checkout's), and times each operation
on random players, the two alternating ``--rounds`` times (µs per call: median
and range). One plain Leaderboard fed the same players is the floor.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import random
import statistics
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List

import fastrank
from fastrank import Leaderboard, ShardedLeaderboard
from fastrank.testing import free_port, start_redis

T0 = 1_790_000_000


def baseline_class(path: str) -> Any:
    spec = importlib.util.spec_from_file_location("baseline_sharded", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ShardedLeaderboard


def per_call(fn: Callable[[str], Any], picks: List[str]) -> float:
    t = time.perf_counter()
    for p in picks:
        fn(p)
    return (time.perf_counter() - t) / len(picks) * 1e6


def measure(client: Any, args: argparse.Namespace, baseline: Any, label: str) -> Dict[str, Dict[str, List[float]]]:
    options = {"tiebreak": None, "ranking": "ordinal"}
    one = Leaderboard(client, f"one{label}", **options)
    now = ShardedLeaderboard(client, f"ties{label}", shards=3, **options)
    for start in range(0, args.players, 5000):
        batch = {f"player:{i}": i % args.values for i in range(start, min(args.players, start + 5000))}
        one.submit_many(batch, at=T0)
        now.submit_many(batch, at=T0)
    boards = {"Leaderboard": one, "baseline": baseline(client, f"ties{label}", shards=3, **options), "now": now}
    rnd = random.Random(2)
    picks = [f"player:{rnd.randrange(args.players)}" for _ in range(args.ops)]
    out: Dict[str, Dict[str, List[float]]] = {}
    for _ in range(args.rounds):
        for name, board in boards.items():
            ops: Dict[str, Callable[[str], Any]] = {
                "rank": lambda p: board.rank(p),
                "around(5)": lambda p: board.around(p, 5),
                "submit with_rank (+1 value)": lambda p: board.submit(p, 1, at=T0, with_rank=True),
            }
            for op, fn in ops.items():
                out.setdefault(op, {}).setdefault(name, []).append(per_call(fn, picks))
    return out


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", required=True, help="an older commit's src/fastrank/leaderboard/sharded.py")
    ap.add_argument("--players", type=int, default=300_000)
    ap.add_argument("--values", type=int, default=10)
    ap.add_argument("--ops", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--backends", default="engine,redis")
    args = ap.parse_args(argv)
    baseline = baseline_class(args.baseline)
    results = {}
    with tempfile.TemporaryDirectory() as root:
        for backend in args.backends.split(","):
            if backend == "engine":
                results["Engine"] = measure(fastrank.Engine(), args, baseline, "e")
            else:
                os.makedirs(os.path.join(root, "single"))
                single = start_redis(free_port(), os.path.join(root, "single"))
                try:
                    results["Redis"] = measure(single.client(), args, baseline, "r")
                finally:
                    single.stop()
    print(f"fastrank {fastrank.__version__}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; "
          f"{args.players:,} players on {args.values} values, {args.ops} calls x {args.rounds} rounds, "
          "µs per call (median [min-max])\n")
    print("| backend | operation | Leaderboard | sharded, baseline | sharded, now | baseline / now |")
    print("|---|---|---:|---:|---:|---:|")
    for backend, ops in results.items():
        for op, times in ops.items():
            med = {name: statistics.median(ts) for name, ts in times.items()}
            cells = [f"{med[n]:,.0f} [{min(times[n]):,.0f}-{max(times[n]):,.0f}]" for n in ("Leaderboard", "baseline", "now")]
            print(f"| {backend} | {op} | {' | '.join(cells)} | {med['baseline'] / med['now']:.1f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
