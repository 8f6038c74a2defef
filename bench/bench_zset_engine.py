"""Nanoseconds per Engine call on one sorted set of N members: ZREVRANK,
ZINCRBY, ZCOUNT and the around-me window (ZREVRANK, then ZREVRANGE of the
11 places around it), next to sortedcontainers' SortedList index lookup.

Method
  - Board: N distinct random 9-digit ids (seed 1) with integer scores in
    [0, 1e6), loaded by ZADD in blocks of 100,000.  The same board goes into
    a sortedcontainers.SortedList of (score, member) pairs.
  - Each operation is called from a plain Python for-loop over 200,000
    members picked at random (so the member's records are usually cache
    misses, as in real traffic); best of 3 runs; ns per call, the loop
    included.  ZINCRBY adds 1..100 (a move); ZCOUNT counts [x, +inf) for a
    random x; SortedList's "rank" is bisect_left of the (score, member) pair
    (what its index lookup costs).
  - Compare two builds by running this file under each, alternately: the
    fastrank imported is the one on PYTHONPATH (see
    bench/results/zset-bptree.md for the commands).

Usage
  PYTHONPATH=src python bench/bench_zset_engine.py              # 1M members
  PYTHONPATH=src python bench/bench_zset_engine.py --members 100000
"""
import argparse
import random
import time
from typing import Callable, List

import fastrank


def timed(fn: Callable[[], None], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--members", type=int, default=1_000_000)
    ap.add_argument("--ops", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rnd = random.Random(1)
    n, ops = args.members, args.ops
    ids = [b"%d" % x for x in rnd.sample(range(100_000_000, 1_000_000_000), n)]
    scores = [float(rnd.randrange(1_000_000)) for _ in range(n)]
    r = fastrank.Engine()
    for lo in range(0, n, 100_000):
        r.zadd("board", dict(zip(ids[lo:lo + 100_000], scores[lo:lo + 100_000])))
    picks: List[bytes] = [ids[rnd.randrange(n)] for _ in range(ops)]
    amounts = [rnd.randrange(1, 101) for _ in range(ops)]
    bounds = [float(rnd.randrange(1_000_000)) for _ in range(ops)]
    zrevrank, zincrby, zcount, zrevrange = r.zrevrank, r.zincrby, r.zcount, r.zrevrange

    def ranks() -> None:
        for m in picks:
            zrevrank("board", m)

    def incrs() -> None:
        for m, a in zip(picks, amounts):
            zincrby("board", a, m)

    def counts() -> None:
        for x in bounds:
            zcount("board", x, "+inf")

    def around() -> None:
        for m in picks:
            k = zrevrank("board", m)
            zrevrange("board", max(0, k - 5), k + 5, withscores=True)

    rows = [("ZREVRANK", timed(ranks, args.repeat)),
            ("ZINCRBY 1..100", timed(incrs, args.repeat)),
            ("ZCOUNT x +inf", timed(counts, args.repeat)),
            ("around me: ZREVRANK + ZREVRANGE k-5 k+5", timed(around, args.repeat))]
    try:
        from sortedcontainers import SortedList
    except ImportError:
        SortedList = None
    if SortedList is not None:
        cur = dict(zip(ids, scores))
        sl = SortedList((s, m) for m, s in cur.items())
        keys = [(cur[m], m) for m in picks]
        bisect_left = sl.bisect_left

        def sl_ranks() -> None:
            for k in keys:
                bisect_left(k)

        rows.append(("sortedcontainers SortedList index (bisect_left)", timed(sl_ranks, args.repeat)))
    print(f"fastrank {fastrank.__file__}")
    print(f"{n:,} members, ns per call (best of {args.repeat} runs of {ops:,}):")
    for name, t in rows:
        print(f"  {name:<48} {t / ops * 1e9:8.0f}")


if __name__ == "__main__":
    main()
