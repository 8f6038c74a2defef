"""SegmentedLeaderboard over 8 and 64 segments against one Leaderboard: the
cost of submit, rank, the global top and global ranks (exact and approximate).

    python bench/bench_segmented.py [--players 1000000] [--ops 1000] [--rounds 3] [--redis]

Loads the same players (random points in [0, 100000), player i in segment
i mod S) into each board -- through pipelines of the boards' own submit
scripts, 1000 a round trip -- on the in-process Engine (and a local Redis with
``--redis``), then times each operation on random players in ``--rounds``
rounds that alternate between the boards, and prints the median and range
of microseconds per call and the ratio to the plain board's median.
The segmented boards keep ``global_size=100`` and ``bucket_width=1000`` (100 buckets).
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

import fastrank
from fastrank import Leaderboard, SegmentedLeaderboard
from fastrank.testing import free_port, start_redis
from timing import per_call

T0 = 1_790_000_000
SEGMENT_COUNTS = (8, 64)


def segment_names(count: int) -> Tuple[str, ...]:
    return tuple(f"s{i}" for i in range(count))


def load(client: Any, board: Any, players: int, batch: int = 1000) -> float:
    """Every player's first submit, ``batch`` scripts a pipeline (the board's own plans)."""
    rnd = random.Random(1)
    segments = getattr(board, "segments", None)
    t = time.perf_counter()
    for start in range(0, players, batch):
        if segments is None:
            board.submit_many({f"player:{i}": rnd.randrange(100_000) for i in range(start, min(players, start + batch))},
                              at=T0)
            continue
        pipe = client.pipeline(transaction=False)
        for i in range(start, min(players, start + batch)):
            script, keys, args, _, _ = board._plan_submit(f"player:{i}", rnd.randrange(100_000),
                                                          segment=segments[i % len(segments)], at=T0)
            pipe.evalsha(script.sha, len(keys), *keys, *args)
        if start == 0:
            client.script_load(script.source)
        pipe.execute()
    return time.perf_counter() - t


def operations(board: Any, players: int) -> Dict[str, Callable[[int], Any]]:
    def player(a: int) -> str:
        return f"player:{a % players}"

    if not isinstance(board, SegmentedLeaderboard):
        return {"submit": lambda a: board.submit(player(a), 1, at=T0 + 1),
                "rank": lambda a: board.rank(player(a)),
                "global_top(10) / top(10)": lambda a: board.top(10),
                "global_rank exact / rank": lambda a: board.rank(player(a))}
    segments = board.segments
    return {"submit": lambda a: board.submit(player(a), 1, segment=segments[a % players % len(segments)], at=T0 + 1),
            "rank": lambda a: board.rank(player(a)),
            "global_top(10) / top(10)": lambda a: board.global_top(10),
            "global_rank exact / rank": lambda a: board.global_rank(player(a)),
            "global_rank approximate": lambda a: board.global_rank(player(a), approximate=True)}


def measure(client: Any, players: int, ops: int, rounds: int, label: str) -> Dict[Tuple[str, str], List[float]]:
    boards: Dict[str, Any] = {"Leaderboard": Leaderboard(client, f"plain{label}")}
    for count in SEGMENT_COUNTS:
        boards[f"Segmented({count})"] = SegmentedLeaderboard(client, f"seg{count}{label}", segments=segment_names(count),
                                                             global_size=100, bucket_width=1000)
    for name, board in boards.items():
        seconds = load(client, board, players)
        print(f"  {label}: loaded {name} in {seconds:.1f} s", file=sys.stderr)
    times: Dict[Tuple[str, str], List[float]] = {}
    for r in range(rounds):
        for name, board in boards.items():          # alternate the boards within each round
            for op, fn in operations(board, players).items():
                times.setdefault((name, op), []).append(per_call(fn, ops, seed=r))
    return times


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, default=1_000_000)
    ap.add_argument("--ops", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--redis", action="store_true", help="also a local Redis (started here)")
    args = ap.parse_args(argv)
    results: Dict[str, Dict[Tuple[str, str], List[float]]] = {}
    results["Engine"] = measure(fastrank.Engine(), args.players, args.ops, args.rounds, "e")
    if args.redis:
        with tempfile.TemporaryDirectory() as root:
            server = start_redis(free_port(), root)
            try:
                results["Redis"] = measure(server.client(), args.players, args.ops, args.rounds, "r")
            finally:
                server.stop()
    print(f"fastrank {fastrank.__version__}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; "
          f"{args.players:,} players, {args.ops:,} calls per row and round, {args.rounds} rounds; "
          f"µs per call: median (min-max)\n")
    names = ["Leaderboard"] + [f"Segmented({c})" for c in SEGMENT_COUNTS]
    print("| backend | operation | " + " | ".join(names) + " |")
    print("|---|---|" + "---:|" * len(names))
    for backend, times in results.items():
        ops = list(dict.fromkeys(op for _, op in times))
        for op in ops:
            base = times.get(("Leaderboard", op))
            cells = []
            for name in names:
                got = times.get((name, op))
                if got is None:
                    cells.append("--")
                    continue
                median = statistics.median(got)
                ratio = f", {median / statistics.median(base):.1f}x" if base and name != "Leaderboard" else ""
                cells.append(f"{median:,.1f} ({min(got):,.1f}-{max(got):,.1f}{ratio})")
            print(f"| {backend} | {op} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
