"""fastrank.Leaderboard at 1M players: the Engine against Redis, and against raw commands.

Run:  python bench/bench_leaderboard.py [--players 1000000] [--ops 20000] [--out bench/results/leaderboard]

One dense-ranked board (tie-break "earliest", rule "incr", N players with
random points in [0, 100000) and random times) is loaded into a fresh
``fastrank.Engine`` and into a throwaway local ``redis-server`` (redis-py with
hiredis), with ``submit_many`` in batches of 10,000. Then, for each operation:

- ``Leaderboard`` on the Engine, per call (median of 5 runs of ``--ops`` calls,
  taken in turn with the runs of the two below, so that a change of the
  shared machine's speed weighs on all three alike);
- the raw Engine commands a hand-written version of the same operation would
  send through redis-py's methods (e.g. ``rank`` = ZREVRANK; a dense rank =
  ZSCORE + ZCOUNT on a set of distinct values; ``submit`` with a dense
  companion = ZSCORE + ZADD + 2 HINCRBY, without its atomicity; ``around``
  and ``friends`` give dense ranks, so their raw versions send the ZCOUNT on
  the distinct values a dense rank needs);
- ``Leaderboard`` on the local Redis through redis-py (median of 5 runs of
  ``--ops`` / 10 calls).

A friends call's 200 friends are listed before the timing (``friend_groups``),
as a caller holds its friends list: the columns time the call, not the
making of its argument.

The columns are microseconds per call and the ratios Engine/raw and
Redis/Engine, all from the same run. Memory: ``used_memory`` growth of the
Redis server and RSS growth of a fresh Python process (Engine), per player,
for the dense-ranked board (board + distinct values + counts) and for a plain
sorted set of the same members and scores.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List, Tuple

import numpy as np
import redis

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src"))
import fastrank  # noqa: E402  (this checkout's fastrank, built in place)
from fastrank import Leaderboard  # noqa: E402
from fastrank.testing import free_port, start_redis  # noqa: E402

POINTS = 100_000
NAME = "bench"


def players_and_points(n: int, seed: int = 1) -> Tuple[List[int], List[int], List[int]]:
    rng = np.random.default_rng(seed)
    ids = rng.choice(900_000_000, size=n, replace=False) + 100_000_000
    return ids.tolist(), rng.integers(0, POINTS, size=n).tolist(), rng.integers(0, 86_400, size=n).tolist()


def load(board: Leaderboard, ids: List[int], points: List[int], times: List[int]) -> float:
    """Load the board with submit_many (one time per batch of 10,000); seconds taken."""
    t0 = time.perf_counter()
    for i in range(0, len(ids), 10_000):
        board.submit_many(list(zip(ids[i:i + 10_000], points[i:i + 10_000])), at=1_790_000_000 + times[i])
    return time.perf_counter() - t0


def per_call_side_by_side(fns: List[Callable[[int], Any]], ops: List[int], repeat: int = 5) -> List[float]:
    """Median microseconds per call of each ``fns[k](i)`` over ``repeat`` runs
    of ``ops[k]`` calls, the runs taken in turn (a, b, c, a, b, c...) so that
    a change of the machine's load weighs on each alike."""
    runs: List[List[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for fn, count, times in zip(fns, ops, runs):
            t0 = time.perf_counter()
            for i in range(count):
                fn(i)
            times.append((time.perf_counter() - t0) / count * 1e6)
    return [statistics.median(times) for times in runs]


def raw_operations(r: Any, board: Leaderboard, ids: List[int]) -> Dict[str, Callable[[int], Any]]:
    """What a hand-written version of each operation sends, through redis-py's methods."""
    key, dense_key, counts_key = board.keys()[:3]
    scale = board.codec.scale
    at = 1_790_100_000

    def submit(i: int) -> None:
        m = ids[i]
        old = r.zscore(key, m)
        old_points = int(old // scale)
        new_points = old_points + 1
        r.zadd(key, {m: new_points * scale + (scale - 1 - at)})
        r.hincrby(counts_key, old_points, -1)
        r.hincrby(counts_key, new_points, 1)

    def competition(i: int) -> int:
        score = r.zscore(key, ids[i])
        return int(r.zcount(key, (score // scale + 1) * scale, "+inf")) + 1

    def dense(i: int) -> int:
        score = r.zscore(key, ids[i])
        return int(r.zcount(dense_key, f"({score // scale}", "+inf")) + 1

    def around(i: int) -> Any:  # the slice, and the dense rank of its first entry
        index = r.zrevrank(key, ids[i])
        items = r.zrevrange(key, max(index - 5, 0), index + 5, withscores=True)
        return items, int(r.zcount(dense_key, f"({items[0][1] // scale}", "+inf")) + 1

    groups = friend_groups(ids)

    def friends(i: int) -> Any:  # their scores, and each one's dense rank
        scores = r.zmscore(key, [ids[(i * 201) % len(ids)], *groups[i]])
        return [int(r.zcount(dense_key, f"({s // scale}", "+inf")) + 1 for s in scores if s is not None]

    def with_rank(i: int) -> Any:
        m = ids[i]
        before = r.zrevrank(key, m)
        submit(i)
        after = r.zrevrank(key, m)
        return r.zrevrange(key, after + 1, min(before, after + 3)) if after < before else []

    return {
        "submit": submit,
        "rank (ordinal)": lambda i: r.zrevrank(key, ids[i]),
        "rank (competition)": competition,
        "rank (dense)": dense,
        "top(10)": lambda i: r.zrevrange(key, 0, 9, withscores=True),
        "around(5)": around,
        "friends(200)": friends,
        "submit(with_rank=True)": with_rank,
    }


def friend_groups(ids: List[int]) -> List[List[int]]:
    """The 200 friends of call i's player, made before any timing: a caller
    holds its friends list, so building it is not part of the call."""
    n = len(ids)
    return [[ids[(i * 201 + k) % n] for k in range(1, 201)] for i in range(max(len(ids) // 50, 1))]


def board_operations(board: Leaderboard, ids: List[int]) -> Dict[str, Callable[[int], Any]]:
    at = 1_790_100_000
    n = len(ids)
    groups = friend_groups(ids)
    return {
        "submit": lambda i: board.submit(ids[i], 1, at=at),
        "rank (ordinal)": lambda i: board.rank(ids[i], ranking="ordinal"),
        "rank (competition)": lambda i: board.rank(ids[i], ranking="competition"),
        "rank (dense)": lambda i: board.rank(ids[i]),
        "top(10)": lambda i: board.top(10),
        "around(5)": lambda i: board.around(ids[i], 5),
        "friends(200)": lambda i: board.friends(ids[(i * 201) % n], groups[i]),
        "submit(with_rank=True)": lambda i: board.submit(ids[i], 1, at=at, with_rank=True),
    }


MEMORY_CHILD = r"""
import gc, sys, numpy as np
sys.path.insert(0, {src!r})
import fastrank
from fastrank import Leaderboard
def rss():
    with open('/proc/self/statm') as f:
        return int(f.read().split()[1]) * {page}
n = {n}
rng = np.random.default_rng(1)
ids = (rng.choice(900_000_000, size=n, replace=False) + 100_000_000).tolist()
points = rng.integers(0, {points}, size=n).tolist()
r = fastrank.Engine()
gc.collect()
before = rss()
if {dense}:
    board = Leaderboard(r, "m", ranking="dense")
    for i in range(0, n, 10_000):
        board.submit_many(list(zip(ids[i:i + 10_000], points[i:i + 10_000])), at=1_790_000_000)
else:
    for i in range(0, n, 10_000):
        r.zadd("m", dict(zip(ids[i:i + 10_000], [float(p) * 2 ** 33 for p in points[i:i + 10_000]])))
gc.collect()
print(rss() - before)
"""


def engine_memory(n: int, dense: bool) -> float:
    """RSS growth per player of a fresh process loading the board on the Engine."""
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    code = MEMORY_CHILD.format(src=src, page=os.sysconf("SC_PAGE_SIZE"), n=n, points=POINTS, dense=dense)
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return int(out.strip()) / n


def redis_memory(r: redis.Redis, board: Leaderboard, n: int) -> Tuple[float, float]:
    """used_memory growth per player: the dense board (already loaded) and a plain zset copy."""
    r.flushall()
    base = r.info("memory")["used_memory"]
    key = "plain"
    ids, points, _ = players_and_points(n)
    pipe = r.pipeline(transaction=False)
    for i in range(0, n, 10_000):
        pipe.zadd(key, dict(zip(ids[i:i + 10_000], [float(p) * 2 ** 33 for p in points[i:i + 10_000]])))
    pipe.execute()
    plain = (r.info("memory")["used_memory"] - base) / n
    r.delete(key)
    base = r.info("memory")["used_memory"]
    load(Leaderboard(r, NAME, ranking="dense"), *players_and_points(n))
    dense = (r.info("memory")["used_memory"] - base) / n
    return dense, plain


def main(argv: List[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=1_000_000)
    parser.add_argument("--ops", type=int, default=20_000)
    parser.add_argument("--out", default=None, help="write <out>.md and <out>.json")
    args = parser.parse_args(argv)
    n, ops = args.players, args.ops
    ids, points, times = players_and_points(n)
    lines = [f"# fastrank.Leaderboard, {n:,} players (dense-ranked, earliest-first ties)", "",
             f"`python bench/bench_leaderboard.py --players {n} --ops {ops}"
             f"{' --out ' + args.out if args.out else ''}`", ""]

    engine = fastrank.Engine()
    on_engine = Leaderboard(engine, NAME, ranking="dense")
    load_engine = load(on_engine, ids, points, times)
    with tempfile.TemporaryDirectory(prefix="fastrank-bench-") as workdir:
        server = start_redis(free_port(), workdir)
        try:
            client = redis.Redis(port=server.port)
            on_redis = Leaderboard(client, NAME, ranking="dense")
            load_redis = load(on_redis, ids, points, times)
            rng = np.random.default_rng(2)
            picks = [ids[k] for k in rng.integers(0, n, size=max(ops, 1)).tolist()]
            raw = raw_operations(engine, on_engine, picks)
            mine = board_operations(on_engine, picks)
            theirs = board_operations(on_redis, picks)
            rows = []
            for name in mine:
                calls = max(ops // 50, 1) if name.startswith("friends") else ops
                raw_us, engine_us, redis_us = per_call_side_by_side(
                    [raw[name], mine[name], theirs[name]], [calls, calls, max(calls // 10, 1)])
                rows.append((name, engine_us, raw_us, redis_us))
                print(f"{name:<24} engine {engine_us:8.2f} us  raw {raw_us:8.2f} us  redis {redis_us:8.2f} us",
                      file=sys.stderr)
            dense_redis, plain_redis = redis_memory(client, on_redis, n)
        finally:
            server.stop()
    dense_engine, plain_engine = engine_memory(n, True), engine_memory(n, False)

    lines += ["| operation | Engine (us/call) | raw Engine commands (us) | Engine / raw | "
              "Redis via redis-py (us/call) | Redis / Engine |",
              "|---|---:|---:|---:|---:|---:|"]
    for name, engine_us, raw_us, redis_us in rows:
        lines.append(f"| {name} | {engine_us:.2f} | {raw_us:.2f} | {engine_us / raw_us:.1f}x | "
                     f"{redis_us:.1f} | {redis_us / engine_us:.1f}x |")
    lines += ["", f"Load with submit_many (10,000 a script): Engine {n / load_engine:,.0f} players/s, "
                  f"Redis {n / load_redis:,.0f} players/s.", "",
              "| memory per player | dense-ranked board | plain sorted set | dense / plain |",
              "|---|---:|---:|---:|",
              f"| Engine (RSS growth) | {dense_engine:.0f} B | {plain_engine:.0f} B | "
              f"{dense_engine / plain_engine:.2f}x |",
              f"| Redis (used_memory growth) | {dense_redis:.0f} B | {plain_redis:.0f} B | "
              f"{dense_redis / plain_redis:.2f}x |", "",
              f"Distinct point values: {len(set(points)):,} (points uniform in [0, {POINTS:,})). "
              f"Median of 5 runs of {ops:,} calls, Engine, raw and Redis in turn "
              f"(friends: {max(ops // 50, 1):,}; Redis: a tenth as many); "
              f"Python {platform.python_version()}, redis-py {redis.__version__}, "
              f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end."]
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out + ".md", "w") as f:
            f.write(text + "\n")
        with open(args.out + ".json", "w") as f:
            json.dump({"players": n, "ops": ops, "rows": [dict(zip(("operation", "engine_us", "raw_us", "redis_us"), r))
                                                          for r in rows],
                       "memory": {"engine_dense": dense_engine, "engine_plain": plain_engine,
                                  "redis_dense": dense_redis, "redis_plain": plain_redis}}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
