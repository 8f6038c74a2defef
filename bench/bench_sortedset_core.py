"""Nanoseconds per call of fastrank._core.SortedSet, and bytes per member.

Method
  - Board: N distinct random 9-digit ids (100000000..999999999, numpy
    int64, seed 1), integer scores in [0, 1e6).  Loaded with add_many.
  - Point operations are called from a plain Python for-loop over 200,000
    members picked at random from the board (so the node and its index slot
    are usually cache misses, as in real traffic), members given as str.
    Reported: total ns per call (loop included) and the loop's own cost
    (the same loop calling a no-op method) -- subtract for the call itself.
  - Ops: incr by an integer 1..100; rank(reverse=True); score;
    range(0, 9, reverse=True, withscores=True); and the numpy batch
    methods incr_many / rank_many / score_many over the same members as an
    int64 array (ns per member).
  - add_many: wall time of one call loading N members into an empty set.
  - Memory: a fresh child process per size generates the arrays, then
    measures RSS before and after add_many (RSS growth / N) and
    memory_usage() / N (bytes the C structures hold).  The peak RSS during
    the load (sort buffers included) is shown as well.
  - Best of 3 repeats for timings.  Single-threaded; timings include
    Python call overhead.  Print the machine and versions with the table.

Usage
  python bench/bench_sortedset_core.py                 # 1M ops, add_many 1M and 10M
  python bench/bench_sortedset_core.py --sizes 1000000  # skip 10M
"""
import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

import fastrank  # noqa: E402
from fastrank._core import SortedSet  # noqa: E402

OPS = 200_000


def board(n, seed=1):
    rng = np.random.default_rng(seed)
    ids = rng.choice(900_000_000, size=n, replace=False).astype(np.int64) + 100_000_000
    scores = rng.integers(0, 1_000_000, size=n).astype(np.float64)
    return ids, scores


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def best(fn, repeats=3):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - t0)
    return min(times)


def point_ops(n):
    ids, scores = board(n)
    z = SortedSet()
    z.add_many(ids, scores)
    rng = np.random.default_rng(2)
    pick = ids[rng.integers(0, n, size=OPS)]
    members = [str(i) for i in pick.tolist()]
    deltas = rng.integers(1, 101, size=OPS).astype(float).tolist()
    pairs = list(zip(members, deltas))

    def loop_only():
        f = z.__len__
        for m in members:
            f()

    def incr():
        f = z.incr
        for m, d in pairs:
            f(m, d)

    def rank():
        f = z.rank
        for m in members:
            f(m, True)

    def score():
        f = z.score
        for m in members:
            f(m)

    def top10():
        f = z.range
        for _ in members:
            f(0, 9, True, True)

    rows = [("(loop + no-op call)", best(loop_only) / OPS)]
    rows.append(("incr(member, delta)", best(incr) / OPS))
    rows.append(("rank(member, True)", best(rank) / OPS))
    rows.append(("score(member)", best(score) / OPS))
    rows.append(("range(0, 9, True, True)", best(top10) / OPS))
    arr_deltas = np.asarray(deltas)
    rows.append(("incr_many (per member)", best(lambda: z.incr_many(pick, arr_deltas)) / OPS))
    rows.append(("rank_many(reverse=True) (per member)", best(lambda: z.rank_many(pick, True)) / OPS))
    rows.append(("score_many (per member)", best(lambda: z.score_many(pick)) / OPS))
    z._check() if n <= 100_000 else None
    return rows


def load_child(n):
    """Runs in a fresh process: time and memory of one add_many of n."""
    ids, scores = board(n)
    before = rss_bytes()
    z = SortedSet()
    t0 = time.perf_counter_ns()
    z.add_many(ids, scores)
    dt = time.perf_counter_ns() - t0
    after = rss_bytes()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    assert len(z) == n
    print(json.dumps({
        "n": n, "seconds": dt / 1e9, "rss_per_member": (after - before) / n,
        "alloc_per_member": z.memory_usage() / n, "peak_extra_per_member": (peak - before) / n,
    }))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000, help="board size for point ops")
    ap.add_argument("--sizes", type=int, nargs="*", default=[1_000_000, 10_000_000],
                    help="add_many / memory sizes (one fresh process each)")
    ap.add_argument("--load-child", type=int, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.load_child:
        load_child(a.load_child)
        return
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
    print(f"fastrank {fastrank.__version__} ({commit}), Python {platform.python_version()}, "
          f"numpy {np.__version__}, {platform.machine()} {platform.processor() or ''}, "
          f"{os.cpu_count()} CPUs")
    print(f"\nPoint ops at N = {a.n:,} (members as str, {OPS:,} random existing members)")
    print(f"{'operation':40s} {'ns/call':>10s}")
    for name, ns in point_ops(a.n):
        print(f"{name:40s} {ns:10.0f}")
    print("\nadd_many into an empty set, fresh process per size")
    print(f"{'N':>12s} {'seconds':>9s} {'ns/member':>10s} {'RSS B/member':>13s} "
          f"{'alloc B/member':>15s} {'peak B/member':>14s}")
    for n in a.sizes:
        out = subprocess.run([sys.executable, os.path.abspath(__file__), "--load-child", str(n)],
                             capture_output=True, text=True, check=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        print(f"{n:12,d} {r['seconds']:9.2f} {r['seconds'] * 1e9 / n:10.0f} "
              f"{r['rss_per_member']:13.1f} {r['alloc_per_member']:15.1f} "
              f"{r['peak_extra_per_member']:14.1f}")


if __name__ == "__main__":
    main()
