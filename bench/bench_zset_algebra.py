"""Milliseconds per Engine call of the sorted-set algebra: ZUNIONSTORE of 24
and of 168 zsets totalling --entries (a rolling leaderboard's day and week
windows), the same with WEIGHTS and AGGREGATE MAX, ZUNION WITHSCORES of
the 24, and ZINTERSTORE of two --inter-size zsets.

Method
  - Slices: --entries entries spread evenly over the 24 (or 168) zsets, each
    entry a player drawn from a pool of entries / 3 (seed 1), so players
    recur across slices as in a rolling window; integer scores in [1, 1000).
  - ZINTERSTORE: two zsets of --inter-size random members of a pool of
    1.5 x that size (about a third in common), random float scores.
  - Each command runs --repeat times on one Engine; the best and the
    median are printed.  Compare two builds by running this file under
    each, alternately (the fastrank imported is the one on PYTHONPATH; see
    bench/results/zset-algebra.md for the commands).

Usage
  PYTHONPATH=src python bench/bench_zset_algebra.py
  PYTHONPATH=src python bench/bench_zset_algebra.py --entries 100000 --repeat 5
"""
import argparse
import random
import statistics
import time
from typing import Callable, List

import fastrank


def slices(r: fastrank.Engine, prefix: str, count: int, entries: int, rnd: random.Random) -> List[str]:
    """count zsets of entries / count players each; their keys."""
    pool = max(entries // 3, 1)
    keys = []
    for i in range(count):
        key = f"{prefix}:{i}"
        members = {b"player:%d" % rnd.randrange(pool): rnd.randrange(1, 1000)
                   for _ in range(entries // count)}
        r.zadd(key, members)
        keys.append(key)
    return keys


def timed(fn: Callable[[], object], repeat: int) -> List[float]:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1e3)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--entries", type=int, default=1_000_000)
    ap.add_argument("--inter-size", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rnd = random.Random(1)
    r = fastrank.Engine()
    day = slices(r, "day", 24, args.entries, rnd)
    week = slices(r, "week", 168, args.entries, rnd)
    pool = int(args.inter_size * 1.5)
    for key in ("a", "b"):
        r.zadd(key, {b"m%d" % m: rnd.random() * 1000
                     for m in rnd.sample(range(pool), args.inter_size)})
    weights = {k: 1.0 + (i % 3) for i, k in enumerate(day)}
    cases = [
        (f"ZUNIONSTORE 24 sets, {args.entries:,} entries", lambda: r.zunionstore("out", day)),
        (f"ZUNIONSTORE 168 sets, {args.entries:,} entries", lambda: r.zunionstore("out", week)),
        ("ZUNIONSTORE 24 sets WEIGHTS AGGREGATE MAX",
         lambda: r.zunionstore("out", weights, aggregate="MAX")),
        ("ZUNION 24 sets WITHSCORES", lambda: r.zunion(day, withscores=True)),
        (f"ZINTERSTORE 2 x {args.inter_size:,}", lambda: r.zinterstore("out", ["a", "b"])),
    ]
    print(f"fastrank from {fastrank.__file__}")
    print(f"{'command':<48} {'best ms':>10} {'median ms':>10}  result")
    for name, fn in cases:
        times = timed(fn, args.repeat)
        size = r.zcard("out")
        print(f"{name:<48} {min(times):>10.1f} {statistics.median(times):>10.1f}  {size:,}")


if __name__ == "__main__":
    main()
