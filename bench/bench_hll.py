"""HyperLogLog ingest, count and accuracy, side by side.

    python bench/bench_hll.py                        # N = 10,000,000, starts its own redis-server
    python bench/bench_hll.py --n 1000000 --no-redis # a quick run
    python bench/bench_hll.py --accuracy 1000        # + the accuracy table (1000 sets per size)

Method
- Items: N random uint64 values (numpy default_rng(seed), 0 .. 2^63), and N
  short strings ``"user:<random id below 10^9>"`` (10-14 bytes).  Items are
  (almost surely) distinct.
- Ingest rows, one run: fastrank ``HyperLogLog.add_many`` on the numpy
  uint64 array (one call; each value hashed as its decimal text, as redis-py
  sends an int) with one thread (``fastrank.set_threads(1)``) and with the
  default thread count (``fastrank.get_threads()``: the dense rest of a big
  batch is split over the shared pool), on a Python list of str and on a
  numpy ``'S'`` array (one call each); Apache DataSketches ``hll_sketch(14)`` (HLL_4) ``update`` per
  item from a Python loop (its only Python entry point; ints as Python ints);
  datasketch ``HyperLogLog(p=14).update`` per item (bytes); Redis ``PFADD``
  with 1,000 items a command, 10 commands a pipeline, through redis-py
  (hiredis) to a local redis-server 7.0.
- Rate = items / wall time of the ingest only (items already in memory),
  best of ``--repeats`` (default 3), each on a fresh sketch.  Slow backends
  (datasketch, Redis) ingest the first ``--slow-n`` items (default 1,000,000);
  their rate is per item either way.
- count(): a dense HLL of 1,000,000 items; ``count()`` with a valid cache,
  and the estimate itself (``_recount()``: histogram of 16384 registers plus
  Ertl's estimator, which is what PFCOUNT does after an update).  Median of
  5 repeats of 10,000 calls.
- Curve: ``add_many`` from a fresh HLL for 10^3 .. 10^7 items (the first
  ~1,670 items take Redis's byte-exact sparse path), ns per item.
- Accuracy (``--accuracy S``): S independent sets per size 10^3 .. 10^7,
  set k = the decimal texts of k * 10^11 + (0 .. n-1) (disjoint sets, hashed
  by MurmurHash64A like any other items); relative error (count - n) / n:
  mean, standard deviation, max |error|.  ``--accuracy-1e7 T`` caps the sets
  at 10^7 (default: S).  The theoretical standard error is 1.04/sqrt(16384)
  = 0.81%.
- The machine, versions and commit are printed with the tables, and the
  load average before and after the ingest rows (threaded rows need idle
  CPUs).  Numbers move with load: compare rows of the same run, not across
  runs.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path
from typing import Callable, List, Optional

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import fastrank  # noqa: E402
from fastrank import HyperLogLog  # noqa: E402
from fastrank.bench.runner import cpu_name  # noqa: E402


def best_rate(n: int, make: Callable[[], object], feed: Callable[[object], None], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        sk = make()
        t = time.perf_counter()
        feed(sk)
        best = min(best, time.perf_counter() - t)
    return n / best


def load() -> str:
    try:
        return "%.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        return "?"


def machine() -> str:
    cpu = cpu_name()
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=Path(__file__).parent).stdout.strip()
    except OSError:
        commit = "?"
    from importlib.metadata import PackageNotFoundError, version

    vers = []
    for mod in ("numpy", "datasketches", "datasketch", "redis", "hiredis"):
        try:
            vers.append("%s %s" % (mod, version(mod)))
        except PackageNotFoundError:
            vers.append("%s (not installed)" % mod)
    try:
        out = subprocess.run(["redis-server", "--version"], capture_output=True, text=True).stdout
        vers.append(out.split()[2] if out else "redis-server ?")
    except OSError:
        pass
    return "%s, %d CPUs, Python %s, %s, fastrank commit %s" % (
        cpu, os.cpu_count() or 0, platform.python_version(), ", ".join(vers), commit)


def start_redis():
    try:
        import redis

        from fastrank.testing import free_port, start_redis as start
    except ImportError:
        return None, None
    workdir = tempfile.mkdtemp(prefix="fastrank-bench-")
    try:
        server = start(free_port(), workdir)
    except Exception:
        return None, None
    return server, redis.Redis(port=server.port)


def redis_feed(client, items: List, per_cmd: int = 1000, per_pipe: int = 10) -> Callable[[object], None]:
    def feed(key) -> None:
        client.delete(key)
        pipe = client.pipeline(transaction=False)
        queued = 0
        for i in range(0, len(items), per_cmd):
            pipe.pfadd(key, *items[i:i + per_cmd])
            queued += 1
            if queued == per_pipe:
                pipe.execute()
                queued = 0
        if queued:
            pipe.execute()
    return feed


def ingest(args, client) -> None:
    rng = np.random.default_rng(args.seed)
    n, slow = args.n, min(args.slow_n, args.n)
    u64 = rng.integers(0, 2**63, size=n, dtype=np.uint64)
    ids = rng.integers(0, 10**9, size=n)
    strs = ["user:%d" % i for i in ids.tolist()]
    sarr = np.array(strs, dtype="S")
    ints = u64.tolist()
    rows = []

    def add(name, kind, items_n, make, feed, repeats=args.repeats):
        rate = best_rate(items_n, make, feed, repeats)
        rows.append((name, kind, items_n, rate))
        print("  %-68s %12.2f M/s" % (name + " [" + kind + "]", rate / 1e6), flush=True)

    print("ingest (items/s, best of %d); load average %s" % (args.repeats, load()))
    threads = fastrank.get_threads()
    try:
        fastrank.set_threads(1)
        add("fastrank HyperLogLog.add_many(numpy uint64), 1 thread", "uint64", n, HyperLogLog,
            lambda h: h.add_many(u64))
    finally:
        fastrank.set_threads(threads)
    add("fastrank HyperLogLog.add_many(numpy uint64), %d threads" % threads, "uint64", n, HyperLogLog,
        lambda h: h.add_many(u64))
    add("fastrank HyperLogLog.add_many(list of str)", "str", n, HyperLogLog, lambda h: h.add_many(strs))
    add("fastrank HyperLogLog.add_many(numpy 'S')", "str", n, HyperLogLog, lambda h: h.add_many(sarr))
    try:
        import datasketches as ds

        def ds_feed(items):
            def feed(sk):
                up = sk.update
                for x in items:
                    up(x)
            return feed
        add("DataSketches hll_sketch(14).update per item", "uint64", n, lambda: ds.hll_sketch(14), ds_feed(ints))
        add("DataSketches hll_sketch(14).update per item", "str", n, lambda: ds.hll_sketch(14), ds_feed(strs))
    except ImportError:
        print("  (datasketches not installed)")
    try:
        import datasketch

        bints = [str(x).encode() for x in ints[:slow]]
        bstrs = [s.encode() for s in strs[:slow]]

        def dk_feed(items):
            def feed(sk):
                up = sk.update
                for x in items:
                    up(x)
            return feed
        add("datasketch HyperLogLog(p=14).update per item", "uint64", slow,
            lambda: datasketch.HyperLogLog(p=14), dk_feed(bints), 1)
        add("datasketch HyperLogLog(p=14).update per item", "str", slow,
            lambda: datasketch.HyperLogLog(p=14), dk_feed(bstrs), 1)
    except ImportError:
        print("  (datasketch not installed)")
    if client is not None:
        add("Redis PFADD 1000/cmd, pipelined 10 cmds", "uint64", slow, lambda: "bench:hll",
            redis_feed(client, ints[:slow]), 1)
        add("Redis PFADD 1000/cmd, pipelined 10 cmds", "str", slow, lambda: "bench:hll",
            redis_feed(client, strs[:slow]), 1)
        # the same items give the same count on both sides
        h = HyperLogLog()
        h.add_many(strs[:slow])
        print("  check: PFCOUNT %d == fastrank %d, GET bytes equal: %s" % (
            client.pfcount("bench:hll"), h.count(), client.get("bench:hll") == h.to_bytes()))
    print("  load average after the ingest rows: %s" % load())
    base = {kind: rate for name, kind, _, rate in rows if name.startswith("DataSketches")}
    if base:
        print("\n  fastrank / DataSketches per item:")
        for name, kind, _, rate in rows:
            if name.startswith("fastrank") and kind in base:
                print("    %-66s %6.1fx" % (name + " [" + kind + "]", rate / base[kind]))


def count_times() -> None:
    h = HyperLogLog()
    h.add_many(np.arange(1_000_000, dtype=np.uint64))
    assert not h.is_sparse
    h.count()
    cached = statistics.median(timeit.repeat(h.count, number=10_000, repeat=5)) / 10_000
    recount = statistics.median(timeit.repeat(h._recount, number=10_000, repeat=5)) / 10_000
    print("\ncount() on a dense HLL (1M items): cached %.3f us, estimate (PFCOUNT after an update) %.2f us"
          % (cached * 1e6, recount * 1e6))


def curve(args) -> None:
    print("\nadd_many from a fresh HLL (ns per item; sparse path for the first ~1,670 items)")
    print("  %10s %14s %14s %10s" % ("n", "numpy uint64", "list of str", "encoding"))
    rng = np.random.default_rng(args.seed + 1)
    for e in range(3, 8):
        n = 10**e
        u64 = rng.integers(0, 2**63, size=n, dtype=np.uint64)
        strs = ["user:%d" % i for i in rng.integers(0, 10**9, size=n).tolist()]
        reps = 5 if n <= 10**5 else 2
        t1 = 1 / best_rate(n, HyperLogLog, lambda h: h.add_many(u64), reps)
        t2 = 1 / best_rate(n, HyperLogLog, lambda h: h.add_many(strs), reps)
        h = HyperLogLog()
        h.add_many(u64)
        print("  %10d %14.1f %14.1f %10s" % (n, t1 * 1e9, t2 * 1e9, "sparse" if h.is_sparse else "dense"))


def accuracy(args) -> None:
    print("\naccuracy: relative error of count() over independent sets (std error 0.81% in theory)")
    print("  %10s %6s %10s %10s %10s" % ("n", "sets", "mean", "std", "max |e|"))
    for e in range(3, 8):
        n = 10**e
        sets = args.accuracy if e < 7 else (args.accuracy_1e7 or args.accuracy)
        errs = []
        base = np.arange(n, dtype=np.uint64)
        t = time.perf_counter()
        for k in range(sets):
            h = HyperLogLog()
            h.add_many(base + np.uint64(k * 10**11))
            errs.append((h.count() - n) / n)
        a = np.array(errs)
        std = a.std(ddof=1) if len(a) > 1 else float("nan")
        print("  %10d %6d %9.3f%% %9.3f%% %9.3f%%   (%.0f s)" % (
            n, sets, 100 * a.mean(), 100 * std, 100 * np.abs(a).max(), time.perf_counter() - t),
            flush=True)


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=10_000_000)
    p.add_argument("--slow-n", type=int, default=1_000_000)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--no-redis", action="store_true")
    p.add_argument("--no-ingest", action="store_true")
    p.add_argument("--no-curve", action="store_true")
    p.add_argument("--accuracy", type=int, default=0, help="sets per size for the accuracy table (0: skip)")
    p.add_argument("--accuracy-1e7", type=int, default=0, help="sets at 10^7 (default: --accuracy)")
    args = p.parse_args(argv)
    print(machine())
    server, client = (None, None) if args.no_redis or args.no_ingest else start_redis()
    try:
        if not args.no_ingest:
            ingest(args, client)
        count_times()
        if not args.no_curve:
            curve(args)
        if args.accuracy:
            accuracy(args)
    finally:
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
