"""Count-Min Sketch and Top-K throughput, side by side, on one Zipf stream.

    python bench/bench_sketches.py                  # N = 10,000,000 items over 1,000,000 ids
    python bench/bench_sketches.py --n 1000000      # a quick run

Method
- Stream: N items drawn from a bounded Zipf(a = 1.1) law over ids 1..IDS
  (probability of id i proportional to i**-1.1; numpy default_rng(seed)).
  Items are the ids as numbers (numpy int64) or as their decimal text (str),
  whichever a backend takes; both hash the same bytes in fastrank.
- Count-Min Sketch: every backend gets the same shape, width 65,536 x depth
  4 (1 MiB of 32-bit counters; bounter's ``size_mb=1, depth=4`` is exactly
  that), plus fastrank at RedisBloom's INITBYPROB 0.001 0.01 size (2000 x 7).
  Rows: fastrank ``CountMinSketch.incrby`` on the numpy int64 array (one
  call), on a list of str (one call), and ``add_many`` on both (the same
  without building the per-item result list/array), each with
  ``fastrank.set_threads(1)`` and with the default thread count (big numpy
  batches share out hashing, then rows, between threads block by block; lists
  are not split; "x base" is the ratio to bounter);
  bounter ``update(list of str)`` (its batch path); DataSketches ``count_min_sketch.update`` per item;
  pyprobables ``CountMinSketch.add`` per item; RedisBloom ``CMS.INCRBY``
  with 100 pairs per command, pipelined 100 commands per round trip through
  redis-py (hiredis) to a local redis-server with redisbloom.so 2.8.2.
- Top-K: RedisBloom's default shape k = 10, width 8, depth 7, decay 0.9.
  Rows: fastrank ``TopK.add_many`` (numpy int64, one call; on one thread,
  then with ``fastrank.get_threads()`` threads -- the default -- when that
  is more than one: a helper thread hashes ahead) and ``TopK.add``
  (list of str, with the expelled replies); DataSketches
  ``frequent_strings_sketch(lg_max_k=10)`` per item; pyprobables
  ``HeavyHitters(10, width 8, depth 7)`` per item; RedisBloom ``TOPK.ADD``
  with 100 items per command, pipelined as above.
- Rate = items / wall time of the ingest only (stream already in memory),
  best of ``--repeats`` (default 3) on a fresh structure each time.  Slow
  backends (pure Python or over a socket) ingest the first ``--slow-n``
  items (default 1,000,000); their rate is per item either way.
- Accuracy, on the prefix each backend ingested: CMS mean overcount of the
  true top 100 ids (estimate - true count, averaged); Top-K recall of the
  true top 10 (fraction of them the sketch lists).
- The machine, versions and commit are printed with the table.  Numbers
  move with load: compare rows of the same run, not across runs.
"""
from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional

import numpy as np

try:  # an installed or PYTHONPATH fastrank first, else this checkout's in-place build
    import fastrank  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import fastrank  # noqa: E402
from fastrank import CountMinSketch, TopK  # noqa: E402
from fastrank.bench.runner import cpu_name  # noqa: E402

WIDTH, DEPTH = 65536, 4
TOPK = dict(k=10, width=8, depth=7, decay=0.9)


def zipf_stream(n: int, ids: int, a: float, seed: int) -> np.ndarray:
    """n ids in 1..ids with P(i) proportional to i**-a."""
    rng = np.random.default_rng(seed)
    cdf = np.cumsum(np.arange(1, ids + 1, dtype=np.float64) ** -a)
    cdf /= cdf[-1]
    return (np.searchsorted(cdf, rng.random(n), side="right") + 1).astype(np.int64)


def truth(items: np.ndarray, top: int):
    values, counts = np.unique(items, return_counts=True)
    order = np.argsort(-counts, kind="stable")[:top]
    return values[order], counts[order]


def best_of(repeats: int, make: Callable[[], object], run: Callable[[object], None]):
    """(best seconds, the structure of the best run)."""
    best, kept = float("inf"), None
    for _ in range(repeats):
        obj = make()
        t0 = time.perf_counter()
        run(obj)
        dt = time.perf_counter() - t0
        if dt < best:
            best, kept = dt, obj
    return best, kept


# -- Count-Min Sketch rows ---------------------------------------------------------

def cms_rows(items: np.ndarray, strs: List[str], slow_n: int, repeats: int, redis_client) -> List[Dict]:
    rows = []
    top_ids, top_counts = {}, {}

    def overcount(n: int, estimate: Callable[[List], List[int]]) -> float:
        if n not in top_ids:
            top_ids[n], top_counts[n] = truth(items[:n], 100)
        est = np.asarray(estimate(top_ids[n].tolist()), dtype=np.float64)
        return float(np.mean(est - top_counts[n]))

    def add(name: str, n: int, make, run, estimate):
        try:
            dt, obj = best_of(repeats if n == items.size else 1, make, run)
        except Exception as e:  # a competitor missing or failing is reported, not fatal
            rows.append(dict(name=name, n=n, rate=None, acc=None, note=f"failed: {e!r}"[:80]))
            return
        rows.append(dict(name=name, n=n, rate=n / dt, acc=overcount(n, lambda ids: estimate(obj, ids))))

    n = items.size
    default_threads = fastrank.get_threads()
    try:
        for threads in sorted({1, default_threads}):
            fastrank.set_threads(threads)
            t = f"{threads} thread{'s' if threads > 1 else ''}"
            add(f"fastrank CountMinSketch.incrby, numpy int64, {t}", n,
                lambda: CountMinSketch(WIDTH, DEPTH), lambda c: c.incrby(items, 1),
                lambda c, ids: c.query(ids))
            add(f"fastrank CountMinSketch.incrby, list of str, {t}", n,
                lambda: CountMinSketch(WIDTH, DEPTH), lambda c: c.incrby(strs, 1),
                lambda c, ids: c.query(ids))
            add(f"fastrank CountMinSketch.add_many (no results), numpy int64, {t}", n,
                lambda: CountMinSketch(WIDTH, DEPTH), lambda c: c.add_many(items),
                lambda c, ids: c.query(ids))
            add(f"fastrank CountMinSketch.add_many (no results), list of str, {t}", n,
                lambda: CountMinSketch(WIDTH, DEPTH), lambda c: c.add_many(strs),
                lambda c, ids: c.query(ids))
            add(f"fastrank CountMinSketch 2000x7 (INITBYPROB .001 .01), numpy, {t}", n,
                lambda: CountMinSketch.from_error(0.001, 0.01), lambda c: c.incrby(items, 1),
                lambda c, ids: c.query(ids))
    finally:
        fastrank.set_threads(default_threads)
    try:
        import bounter

        add(f"bounter {bounter.__version__ if hasattr(bounter, '__version__') else ''} CountMinSketch.update(list of str)".replace("  ", " "),
            n, lambda: bounter.CountMinSketch(size_mb=1, depth=DEPTH), lambda c: c.update(strs),
            lambda c, ids: [c[str(i)] for i in ids])
    except ImportError:
        rows.append(dict(name="bounter", n=0, rate=None, acc=None, note="not installed"))
    try:
        import datasketches

        def ds_run(c, upd_n=n):
            upd = c.update
            for s in strs[:upd_n]:
                upd(s)

        add("DataSketches count_min_sketch.update per item (str)", n,
            lambda: datasketches.count_min_sketch(DEPTH, WIDTH), ds_run,
            lambda c, ids: [c.get_estimate(str(i)) for i in ids])
    except ImportError:
        rows.append(dict(name="DataSketches", n=0, rate=None, acc=None, note="not installed"))
    try:
        import probables

        def pp_run(c):
            add_ = c.add
            for s in strs[:slow_n]:
                add_(s)

        add("pyprobables CountMinSketch.add per item", slow_n,
            lambda: probables.CountMinSketch(width=WIDTH, depth=DEPTH), pp_run,
            lambda c, ids: [c.check(str(i)) for i in ids])
    except ImportError:
        rows.append(dict(name="pyprobables", n=0, rate=None, acc=None, note="not installed"))
    if redis_client is not None:
        def rb_make():
            redis_client.delete("bench:cms")
            redis_client.execute_command("CMS.INITBYDIM", "bench:cms", WIDTH, DEPTH)
            return redis_client

        def rb_run(r):
            pipe = r.pipeline(transaction=False)
            sub = items[:slow_n].tolist()
            for i in range(0, len(sub), 100):
                args = []
                for v in sub[i:i + 100]:
                    args += (v, 1)
                pipe.execute_command("CMS.INCRBY", "bench:cms", *args)
                if (i // 100) % 100 == 99:
                    pipe.execute()
            pipe.execute()

        add("RedisBloom 2.8.2 CMS.INCRBY, 100 pairs/cmd, pipelined", slow_n, rb_make, rb_run,
            lambda r, ids: r.execute_command("CMS.QUERY", "bench:cms", *ids))
    return rows


# -- Top-K rows -------------------------------------------------------------------------

def topk_rows(items: np.ndarray, strs: List[str], slow_n: int, repeats: int, redis_client) -> List[Dict]:
    rows = []
    tops = {}

    def recall(n: int, found) -> float:
        if n not in tops:
            tops[n] = {str(v) for v in truth(items[:n], TOPK["k"])[0].tolist()}
        return len(tops[n] & {f.decode() if isinstance(f, bytes) else str(f) for f in found}) / TOPK["k"]

    def add(name: str, n: int, make, run, listing):
        try:
            dt, obj = best_of(repeats if n == items.size else 1, make, run)
        except Exception as e:
            rows.append(dict(name=name, n=n, rate=None, acc=None, note=f"failed: {e!r}"[:80]))
            return
        rows.append(dict(name=name, n=n, rate=n / dt, acc=recall(n, listing(obj))))

    n = items.size
    default_threads = fastrank.get_threads()

    def threaded(count: int):
        def run(t):
            before = fastrank.get_threads()
            fastrank.set_threads(count)
            try:
                t.add_many(items)
            finally:
                fastrank.set_threads(before)
        return run

    add("fastrank TopK.add_many, numpy int64, 1 thread", n, lambda: TopK(seed=1, **TOPK),
        threaded(1), lambda t: t.list())
    if default_threads > 1:
        add(f"fastrank TopK.add_many, numpy int64, {default_threads} threads (default)", n,
            lambda: TopK(seed=1, **TOPK), threaded(default_threads), lambda t: t.list())
    add("fastrank TopK.add, list of str (expelled replies)", n, lambda: TopK(seed=1, **TOPK),
        lambda t: t.add(strs), lambda t: t.list())
    try:
        import datasketches

        def fi_run(s):
            upd = s.update
            for x in strs:
                upd(x)

        add("DataSketches frequent_strings_sketch(lg_max_k=10) per item", n,
            lambda: datasketches.frequent_strings_sketch(10), fi_run,
            lambda s: [row[0] for row in s.get_frequent_items(
                datasketches.frequent_items_error_type.NO_FALSE_NEGATIVES)[:TOPK["k"]]])
    except ImportError:
        rows.append(dict(name="DataSketches", n=0, rate=None, acc=None, note="not installed"))
    try:
        import probables

        def hh_run(h):
            add_ = h.add
            for x in strs[:slow_n]:
                add_(x)

        add("pyprobables HeavyHitters(10, 8x7) per item", slow_n,
            lambda: probables.HeavyHitters(num_hitters=TOPK["k"], width=TOPK["width"], depth=TOPK["depth"]),
            hh_run, lambda h: sorted(h.heavy_hitters, key=lambda x: -h.heavy_hitters[x])[:TOPK["k"]])
    except ImportError:
        rows.append(dict(name="pyprobables", n=0, rate=None, acc=None, note="not installed"))
    if redis_client is not None:
        def rb_make():
            redis_client.delete("bench:topk")
            redis_client.execute_command("TOPK.RESERVE", "bench:topk", TOPK["k"], TOPK["width"],
                                         TOPK["depth"], TOPK["decay"])
            return redis_client

        def rb_run(r):
            pipe = r.pipeline(transaction=False)
            sub = items[:slow_n].tolist()
            for i in range(0, len(sub), 100):
                pipe.execute_command("TOPK.ADD", "bench:topk", *sub[i:i + 100])
                if (i // 100) % 100 == 99:
                    pipe.execute()
            pipe.execute()

        add("RedisBloom 2.8.2 TOPK.ADD, 100 items/cmd, pipelined", slow_n, rb_make, rb_run,
            lambda r: r.execute_command("TOPK.LIST", "bench:topk"))
    return rows


# -- runner ------------------------------------------------------------------------------

def start_redisbloom():
    """A local redis-server with RedisBloom, or (None, None) when unavailable."""
    try:
        import redis

        from fastrank.testing import free_port, redisbloom_path, start_redis
    except ImportError:
        return None, None
    if redisbloom_path() is None:
        return None, None
    workdir = tempfile.mkdtemp(prefix="fastrank-bench-")
    try:
        server = start_redis(free_port(), workdir)
    except Exception:
        return None, None
    return server, redis.Redis(port=server.port)


def print_table(title: str, rows: List[Dict], acc_name: str, base: Optional[str]) -> None:
    print(f"\n{title}")
    print(f"{'backend':72} {'items':>10} {'M items/s':>10} {'x base':>7} {acc_name:>16}")
    base_rate = next((r["rate"] for r in rows if base and base in r["name"] and r["rate"]), None)
    for r in rows:
        if r["rate"] is None:
            print(f"{r['name']:72} {'':>10} {'-':>10} {'':>7} {r.get('note', ''):>16}")
            continue
        ratio = f"{r['rate'] / base_rate:.2f}" if base_rate else ""
        print(f"{r['name']:72} {r['n']:>10,} {r['rate'] / 1e6:>10.2f} {ratio:>7} {r['acc']:>16.3f}")


def versions() -> str:
    out = [f"python {platform.python_version()}", f"numpy {np.__version__}"]
    for mod in ("bounter", "datasketches", "probables", "redis"):
        try:
            from importlib.metadata import version

            out.append(f"{mod} {version({'probables': 'pyprobables'}.get(mod, mod))}")
        except Exception:
            out.append(f"{mod} -")
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=Path(__file__).parent).stdout.strip()
    except OSError:
        commit = "?"
    load = "load average %.2f %.2f %.2f" % os.getloadavg() if hasattr(os, "getloadavg") else "load ?"
    return (f"{cpu_name()}, {os.cpu_count()} CPUs, fastrank threads {fastrank.get_threads()}, {load}; "
            + ", ".join(out) + f"; fastrank commit {commit}")


def main(argv: Optional[List[str]] = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--ids", type=int, default=1_000_000)
    ap.add_argument("--a", type=float, default=1.1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--slow-n", type=int, default=1_000_000)
    ap.add_argument("--only", choices=["cms", "topk"], default=None)
    ap.add_argument("--no-redis", action="store_true")
    args = ap.parse_args(argv)

    print(versions())
    items = zipf_stream(args.n, args.ids, args.a, args.seed)
    strs = [str(v) for v in items.tolist()]
    slow_n = min(args.slow_n, args.n)
    print(f"stream: {args.n:,} items, Zipf({args.a}) over {args.ids:,} ids, "
          f"{np.unique(items).size:,} distinct; slow backends ingest the first {slow_n:,}")
    server, client = (None, None) if args.no_redis else start_redisbloom()
    try:
        if args.only in (None, "cms"):
            rows = cms_rows(items, strs, slow_n, args.repeats, client)
            print_table(f"Count-Min Sketch, {WIDTH} x {DEPTH}", rows, "overcount top100",
                        "bounter")
        if args.only in (None, "topk"):
            rows = topk_rows(items, strs, slow_n, args.repeats, client)
            print_table(f"Top-K, k={TOPK['k']} width={TOPK['width']} depth={TOPK['depth']} "
                        f"decay={TOPK['decay']}", rows, "recall top10", "DataSketches")
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
