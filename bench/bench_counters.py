"""ShardedCounter against one plain INCR key: increments per second, side by side.

    python bench/bench_counters.py [--ops 20000] [--threads 4]

Starts its own servers on loopback (a standalone Redis and a 3-master
cluster, fastrank.testing). For each target (the in-process Engine, Redis,
the cluster) it runs the same number of increments from several client
threads: first INCR on one key, then ``ShardedCounter.incr`` with 1, 8 and
32 shards. It prints increments per second, the ratio to plain INCR, and on
the cluster the busiest node's share of the increments (INFO commandstats):
with one key every increment lands on one node, which is what sharding
spreads out.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from typing import Any, Callable, Dict, List

import redis
from redis.cluster import RedisCluster

import fastrank
from fastrank import ShardedCounter
from fastrank.testing import free_port, start_cluster, start_redis


def rate(make_incr: Callable[[], Callable[[], Any]], ops: int, threads: int) -> float:
    """Increments per second when `threads` threads share `ops` calls."""
    per = ops // threads
    incrs = [make_incr() for _ in range(threads)]
    start = threading.Barrier(threads + 1)

    def worker(incr: Callable[[], Any]) -> None:
        start.wait()
        for _ in range(per):
            incr()

    pool = [threading.Thread(target=worker, args=(f,)) for f in incrs]
    for t in pool:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    for t in pool:
        t.join()
    return per * threads / (time.perf_counter() - t0)


def incr_calls(nodes: List[redis.Redis]) -> List[int]:
    out = []
    for n in nodes:
        stats = n.info("commandstats")
        out.append(sum(stats.get(f"cmdstat_{c}", {}).get("calls", 0) for c in ("incr", "incrby")))
    return out


def measure(name: str, client: Any, ops: int, threads: int, nodes: List[redis.Redis]) -> List[Dict[str, Any]]:
    rows = []
    variants: List[Any] = [("INCR one key", None)] + [(f"ShardedCounter({s})", s) for s in (1, 8, 32)]
    for label, shards in variants:
        client.flushall()
        before = incr_calls(nodes)
        if shards is None:
            r = rate(lambda: (lambda: client.incr("plain")), ops, threads)
            total = int(client.get("plain"))
        else:
            counter = ShardedCounter(client, f"bench{shards}", shards=shards)
            r = rate(lambda: counter.incr, ops, threads)
            total = counter.value()
        after = incr_calls(nodes)
        per_node = [a - b for a, b in zip(after, before)]
        busiest = max(per_node) / sum(per_node) if nodes and sum(per_node) else None
        assert total == ops // threads * threads, (label, total)
        rows.append({"target": name, "variant": label, "rate": r, "busiest": busiest})
    return rows


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ops", type=int, default=20_000, help="increments per measurement")
    ap.add_argument("--threads", type=int, default=4, help="client threads")
    args = ap.parse_args(argv)
    rows: List[Dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "single"))
        single = start_redis(free_port(), os.path.join(root, "single"))
        cluster = start_cluster(os.path.join(root, "cluster"))
        try:
            rows += measure("Engine (in-process)", fastrank.Engine(), args.ops, args.threads, [])
            rows += measure("Redis (loopback)", single.client(), args.ops, args.threads, [single.client()])
            rc = RedisCluster(host="127.0.0.1", port=cluster[0].port)
            rows += measure("Redis Cluster, 3 masters", rc, args.ops, args.threads,
                            [n.client() for n in cluster])
            rc.close()
        finally:
            single.stop()
            for n in cluster:
                n.stop()
    print(f"fastrank {fastrank.__version__}, {os.cpu_count()} CPUs, {args.ops} increments from "
          f"{args.threads} threads per row; load average {os.getloadavg()[0]:.1f}\n")
    print("| target | variant | increments/s | vs INCR one key | busiest node's share |")
    print("|---|---|---:|---:|---:|")
    base: Dict[str, float] = {}
    for row in rows:
        base.setdefault(row["target"], row["rate"])
        share = "—" if row["busiest"] is None else f"{row['busiest']:.0%}"
        print(f"| {row['target']} | {row['variant']} | {row['rate']:,.0f} | "
              f"{row['rate'] / base[row['target']]:.2f}x | {share} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
