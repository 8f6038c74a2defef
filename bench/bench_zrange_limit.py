"""ZRANGEBYSCORE / ZRANGEBYLEX walks with LIMIT on one Engine sorted set of N members.

Run:  PYTHONPATH=src python bench/bench_zrange_limit.py [--members 1000000] [--ops 20000] [--repeat 5]

Two sets in a fresh ``fastrank.Engine``: ``s`` (N members, distinct random
scores in [0, N)) and ``x`` (N members, all at score 0, for the lex walks).
Each operation is called --ops times from random start points, through
redis-py's methods; --repeat rounds, the operations in turn in each round.
Prints microseconds per call, median and best of the rounds.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import fastrank


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--members", type=int, default=1_000_000)
    ap.add_argument("--ops", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    n = a.members
    r = fastrank.Engine()
    rnd = random.Random(26)
    scores = list(range(n))
    rnd.shuffle(scores)
    for i in range(0, n, 100_000):
        r.zadd("s", {f"p{k:08d}": scores[k] for k in range(i, min(n, i + 100_000))})
        r.zadd("x", {f"m{k:08d}": 0 for k in range(i, min(n, i + 100_000))})
    starts = [rnd.randrange(n) for _ in range(a.ops)]
    lex = [f"[m{k:08d}" for k in starts]

    def by_score(count: int, rev: bool):
        if rev:
            return lambda: [r.zrevrangebyscore("s", k, "-inf", start=0, num=count) for k in starts]
        return lambda: [r.zrangebyscore("s", k, "+inf", start=0, num=count) for k in starts]

    def by_lex(count: int, rev: bool):
        if rev:
            return lambda: [r.zrevrangebylex("x", m, "-", start=0, num=count) for m in lex]
        return lambda: [r.zrangebylex("x", m, "+", start=0, num=count) for m in lex]

    ops = {
        "ZRANGEBYSCORE k lo +inf LIMIT 0 10": by_score(10, False),
        "ZREVRANGEBYSCORE k hi -inf LIMIT 0 10": by_score(10, True),
        "ZRANGEBYSCORE k lo +inf LIMIT 0 100": by_score(100, False),
        "ZRANGEBYLEX k [m + LIMIT 0 10": by_lex(10, False),
        "ZREVRANGEBYLEX k [m - LIMIT 0 10": by_lex(10, True),
    }
    got: dict[str, list[float]] = {k: [] for k in ops}
    for _ in range(a.repeat):
        for name, fn in ops.items():
            t = time.perf_counter()
            fn()
            got[name].append((time.perf_counter() - t) / a.ops * 1e6)
    print(f"{n:,} members, {a.ops:,} calls x {a.repeat} rounds; us per call (median, best)")
    for name, v in got.items():
        print(f"{name:40s} {statistics.median(v):8.2f} {min(v):8.2f}")


if __name__ == "__main__":
    main()
