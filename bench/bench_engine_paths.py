"""The Engine's dispatch path: the cost of one call of each command, as ratios.

Every command a user calls goes through the same path (redis-py's method,
argument packing, the command table, the handler under the lock, reply
shaping); ZSCORE, ZREVRANGE, ZADD, HINCRBY and HSET have compiled front
doors. This prints, for a
zset of ``--members`` members (scores 0..n-1) plus one lex zset of the same
size (all scores 0), the best of ``--repeat`` rounds of ``--calls`` calls per
command, in µs per call, and its ratio to ZSCORE (simple commands), to
ZREVRANGE 0 9 (ranges with LIMIT) or to the same 10 calls made one by one
(pipelines). Rounds of all commands are interleaved, so a slower moment of the
machine touches every row alike.

    python bench/bench_engine_paths.py                 # 1M members, 3 x 50k calls
    python bench/bench_engine_paths.py --members 100000 --calls 20000
"""
from __future__ import annotations

import argparse
import itertools
import os
import time
from collections.abc import Callable

import fastrank


def build(members: int) -> fastrank.Engine:
    r = fastrank.Engine()
    batch = 100_000
    for lo in range(0, members, batch):
        hi = min(members, lo + batch)
        r.zadd("board", {b"player:%d" % i: float(i) for i in range(lo, hi)})
        r.zadd("names", {b"name:%08d" % i: 0.0 for i in range(lo, hi)})
    r.set("motd", "hello")
    r.hset("profile", "name", "ann")
    r.sadd("friends", "bob")
    return r


def cases(r: fastrank.Engine) -> dict[str, Callable[[], object]]:
    ten = [b"player:%d" % (i * 997) for i in range(10)]

    def pipeline(transaction: bool) -> Callable[[], object]:
        def run() -> object:
            p = r.pipeline(transaction)
            for m in ten:
                p.zscore("board", m)
            return p.execute()
        return run

    update_scores = itertools.cycle((500.0, 500.5))  # each ZADD moves the member

    def ten_calls() -> object:
        return [r.zscore("board", m) for m in ten]

    return {
        "ZSCORE": lambda: r.zscore("board", "player:500"),
        "ZCARD": lambda: r.zcard("board"),
        "GET": lambda: r.get("motd"),
        "HGET": lambda: r.hget("profile", "name"),
        "SISMEMBER": lambda: r.sismember("friends", "bob"),
        "EXISTS": lambda: r.exists("motd"),
        "TTL": lambda: r.ttl("motd"),
        "ZADD 1 member (score update)": lambda: r.zadd("board",
                                                       {"player:500": next(update_scores)}),
        "HINCRBY": lambda: r.hincrby("profile", "visits", 1),
        "HSET 1 field": lambda: r.hset("profile", "name", "ann"),
        "ZCOUNT": lambda: r.zcount("board", 1000, 500_000),
        "ZLEXCOUNT": lambda: r.zlexcount("names", "[name:00001000", "(name:00500000"),
        "ZMSCORE 10": lambda: r.zmscore("board", ten),
        "ZREVRANGE 0 9": lambda: r.zrevrange("board", 0, 9),
        "ZREVRANGEBYSCORE LIMIT 10": lambda: r.zrevrangebyscore("board", "+inf", "-inf",
                                                                start=0, num=10),
        "ZRANGEBYLEX LIMIT 10": lambda: r.zrangebylex("names", "[name:00001000", "+",
                                                      start=0, num=10),
        "10 x ZSCORE": ten_calls,
        "pipeline of 10 ZSCORE": pipeline(False),
        "transaction of 10 ZSCORE": pipeline(True),
    }


BASES = {"ZREVRANGEBYSCORE LIMIT 10": "ZREVRANGE 0 9", "ZRANGEBYLEX LIMIT 10": "ZREVRANGE 0 9",
         "ZREVRANGE 0 9": "ZSCORE", "10 x ZSCORE": "10 x ZSCORE",
         "pipeline of 10 ZSCORE": "10 x ZSCORE", "transaction of 10 ZSCORE": "10 x ZSCORE"}


def measure(fns: dict[str, Callable[[], object]], calls: int, repeat: int) -> dict[str, float]:
    best = {name: float("inf") for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            n = max(1, calls // 10) if "10" in name and "LIMIT" not in name else calls
            start = time.perf_counter()
            for _ in range(n):
                fn()
            best[name] = min(best[name], (time.perf_counter() - start) / n * 1e6)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--members", type=int, default=1_000_000)
    ap.add_argument("--calls", type=int, default=50_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    r = build(args.members)
    best = measure(cases(r), args.calls, args.repeat)
    print(f"# Engine dispatch path, {args.members:,} members, best of {args.repeat} x "
          f"{args.calls:,} calls (pipelines: x {max(1, args.calls // 10):,}); "
          f"load average {os.getloadavg()[0]:.2f}")
    print()
    print("| command | µs per call | ratio | to |")
    print("|---|---:|---:|---|")
    for name, us in best.items():
        base = BASES.get(name, "ZSCORE")
        print(f"| {name} | {us:.3f} | {us / best[base]:.1f}x | {base} |")


if __name__ == "__main__":
    main()
