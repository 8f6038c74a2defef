"""Side-by-side leaderboard benchmark: one run, one table, ratios to redis-py.

Method: a board of N members (random distinct 9-digit ids, integer scores
0..1e6) is bulk-loaded into each backend; then each backend runs the same
random operations (ZINCRBY by an integer 1..100 of existing members, ZREVRANK
of existing members, ZREVRANGE 0 9 WITHSCORES). Ops per second is the count
of operations divided by wall time (time.perf_counter), best of ``--repeat``
runs. Slow backends run fewer operations (``--ops`` / 10 or / 40), which does
not change a per-operation rate. The Redis server's own cost per command is
read from INFO commandstats (usec_per_call) after the redis-py rows, and
Redis's memory per member from INFO memory used_memory before/after the load.
fastrank's memory per member is the RSS growth of a fresh process that loads
the board with SortedSet.add_many (``--memory-sizes``).

Usage:  python bench/compare.py [--n 1000000] [--ops 200000] [--redis URL]
        [--memory-sizes 1000000,10000000] [--json out.json]
Without --redis a throwaway redis-server is started on a free loopback port.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List, Optional

import numpy as np
import redis

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peers  # noqa: E402

OPS = ("load", "zincrby", "zrevrank", "zrevrange_top10")


def make_board(n: int, seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    ids = rng.choice(900_000_000, size=int(n * 1.05) + 16, replace=False)[:n] + 100_000_000
    scores = rng.integers(0, 1_000_000, size=n).astype(np.float64)
    return ids.astype(np.int64), scores


def time_best(fn: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def run_backend(backend: Any, ids: np.ndarray, scores: np.ndarray, nops: int,
                repeat: int, seed: int = 11) -> Dict[str, float]:
    """Ops/s of each operation on one backend (absent when it has no such path)."""
    rng = np.random.default_rng(seed)
    pick = ids[rng.integers(0, len(ids), size=nops)]
    deltas = rng.integers(1, 101, size=nops).astype(np.float64)
    batch = isinstance(backend, peers.SortedSetBatch)
    members = pick if batch else pick.tolist()
    incs = deltas if batch else deltas.tolist()
    out: Dict[str, float] = {}
    t0 = time.perf_counter()
    backend.load(ids, scores)
    out["load"] = len(ids) / (time.perf_counter() - t0)
    out["zincrby"] = nops / time_best(lambda: backend.zincrby(members, incs), repeat)
    out["zrevrank"] = nops / time_best(lambda: backend.zrevrank(members), repeat)
    if backend.zrevrange_top10 is not None:
        reads = max(nops // 4, 1)
        out["zrevrange_top10"] = reads / time_best(lambda: backend.zrevrange_top10(reads), repeat)
    return out


def redis_server_cost(client: redis.Redis) -> Dict[str, float]:
    stats = client.info("commandstats")
    cost = {}
    for op, cmd in (("zincrby", "zincrby"), ("zrevrank", "zrevrank"), ("zrevrange_top10", "zrevrange")):
        entry = stats.get(f"cmdstat_{cmd}")
        if entry:
            cost[op] = float(entry["usec_per_call"])
    return cost


def redis_memory_per_member(client: redis.Redis, ids: np.ndarray, scores: np.ndarray) -> float:
    client.flushall()
    before = client.info("memory")["used_memory"]
    peers.RedisPyClient("load", client).load(ids, scores)
    after = client.info("memory")["used_memory"]
    client.flushall()
    return (after - before) / len(ids)


MEMORY_PROBE = r"""
import sys, numpy as np
from fastrank import SortedSet
def rss():
    with open('/proc/self/statm') as f:
        return int(f.read().split()[1]) * 4096
n = int(sys.argv[1])
rng = np.random.default_rng(7)
ids = (rng.choice(900_000_000, size=n, replace=False) + 100_000_000).astype(np.int64)
scores = rng.integers(0, 1_000_000, size=n).astype(np.float64)
z = SortedSet()
before = rss()
z.add_many(ids, scores)
print((rss() - before) / n, z.memory_usage() / n)
"""


def fastrank_memory_per_member(n: int) -> tuple[float, float]:
    """(RSS growth, C bytes allocated) per member for n members, in a fresh process."""
    out = subprocess.run([sys.executable, "-c", MEMORY_PROBE, str(n)], check=True,
                         capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1])


def fmt_rate(x: Optional[float]) -> str:
    if x is None:
        return "-"
    if x >= 1e6:
        return f"{x / 1e6:.2f}M"
    if x >= 1e3:
        return f"{x / 1e3:.1f}k"
    return f"{x:.0f}"


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=1_000_000, help="board size")
    ap.add_argument("--ops", type=int, default=200_000, help="operations per measurement (fast backends)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--redis", default=None, help="redis:// URL (default: start a local server)")
    ap.add_argument("--memory-sizes", default="1000000,10000000")
    ap.add_argument("--no-fakeredis", action="store_true")
    ap.add_argument("--json", default=None, help="write the results as JSON here")
    args = ap.parse_args(argv)

    from fastrank import Engine, __version__

    server = None
    if args.redis is None:
        from fastrank.testing import free_port, start_redis

        workdir = tempfile.mkdtemp(prefix="fastrank-bench-")
        server = start_redis(free_port(), workdir)
        url = server.url
    else:
        url = args.redis
    real = redis.Redis.from_url(url)
    real.flushall()

    ids, scores = make_board(args.n)
    nops = args.ops
    backends: List[tuple[Any, int]] = [
        (peers.SortedSetSingle(), nops),
        (peers.SortedSetBatch(), nops),
        (peers.RedisPyClient("fastrank Engine", Engine()), nops),
        (peers.RedisPyClient("redis-py per call", real), max(nops // 40, 1000)),
        (peers.RedisPyPipelined("redis-py pipelined (1000/batch)", real), max(nops // 10, 1000)),
        (peers.SortedContainersBoard(), max(nops // 4, 1000)),
    ]
    if not args.no_fakeredis:
        try:
            import fakeredis

            backends.append((peers.RedisPyClient("fakeredis", fakeredis.FakeRedis()), max(nops // 40, 1000)))
        except ImportError:
            pass

    results: Dict[str, Dict[str, float]] = {}
    server_cost: Dict[str, float] = {}
    for backend, count in backends:
        print(f"... {backend.name}", file=sys.stderr, flush=True)
        if backend.name == "redis-py per call":
            real.config_resetstat()
        results[backend.name] = run_backend(backend, ids, scores, count, args.repeat)
        if backend.name == "redis-py per call":
            server_cost = redis_server_cost(real)
        if hasattr(backend, "client"):
            backend.client.delete(peers.KEY)
        del backend

    base = results["redis-py per call"]
    print(f"\nfastrank {__version__} | N = {args.n:,} members | Python {platform.python_version()} | "
          f"redis-py {redis.__version__} | Redis {real.info('server')['redis_version']} | "
          f"{platform.machine()}, {os.cpu_count()} cores")
    print(f"\n| backend | {' | '.join(OPS)} |")
    print("|---|" + "---|" * len(OPS))
    for name, res in results.items():
        cells = []
        for op in OPS:
            v = res.get(op)
            ratio = "" if v is None or op not in base else f" ({v / base[op]:.1f}x)"
            cells.append(fmt_rate(v) + ratio)
        print(f"| {name} | {' | '.join(cells)} |")
    print("\nops/s (ratio to redis-py per call)")
    if server_cost:
        print("\nRedis server-side cost (INFO commandstats usec_per_call) vs fastrank per op:")
        for op, us in server_cost.items():
            eng = results["fastrank Engine"].get(op)
            batch = results["fastrank SortedSet (numpy batch)"].get(op)
            line = f"  {op}: Redis {us:.2f} us | Engine {1e6 / eng:.2f} us"
            if batch:
                line += f" | SortedSet batch {1e6 / batch:.3f} us"
            print(line)

    memory: Dict[str, Dict[str, float]] = {}
    for size in [int(s) for s in args.memory_sizes.split(",") if s]:
        print(f"... memory at {size:,}", file=sys.stderr, flush=True)
        mids, mscores = make_board(size)
        rss, alloc = fastrank_memory_per_member(size)
        redis_bpm = redis_memory_per_member(real, mids, mscores)
        memory[str(size)] = {"fastrank_rss": rss, "fastrank_alloc": alloc, "redis_used_memory": redis_bpm}
        print(f"memory per member at {size:,}: fastrank {rss:.1f} B (RSS growth; {alloc:.1f} B allocated) | "
              f"Redis {redis_bpm:.1f} B (used_memory) | ratio {rss / redis_bpm:.2f}")

    if args.json:
        with open(args.json, "w") as f:
            json.dump({"n": args.n, "results": results, "redis_usec_per_call": server_cost,
                       "memory_bytes_per_member": memory}, f, indent=2)
    if server is not None:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
